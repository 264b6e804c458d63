"""KerasHub backbones at tiny configurations, with inputs, run the same way under Keras and
under kgraph (``kgraph.compat.install()`` makes KerasHub's ``import keras`` give kgraph).

    python tests/support/keras_hub_cases.py keras DIRECTORY       # 1. Keras: weights, outputs
    python tests/support/keras_hub_cases.py kgraph DIRECTORY      # 2. kgraph: loads them
    python tests/support/keras_hub_cases.py keras-load DIRECTORY  # 3. Keras reads kgraph's file

The two systems run in separate processes, as each binds ``keras`` once. Each writes, per
case, ``<case>.<system>.npz``: the parameter count and the outputs on the case's inputs
(kgraph also those of ``compiler.compile``'s program, as ``compiled/<output>``), after
loading the ``.weights.h5`` file Keras wrote. Both also take one ``fit`` step of a
``LlamaCausalLM`` on that backbone (``fit.<system>.npz``: loss and weights), and one with
LoRA enabled on the backbone (``lora.<system>.npz``, ``llama.<system>.lora.h5``), and write the
GPT-2 backbone as a ``.keras`` file, which the other reads.
"""

from __future__ import annotations

import sys

import numpy as np

SEQUENCE = 8
VOCABULARY = 64


def _tokens(batch=2):
    rng = np.random.default_rng(0)
    return {"token_ids": rng.integers(1, VOCABULARY, (batch, SEQUENCE)).astype("int32"),
            "padding_mask": np.array([[1] * SEQUENCE, [1] * (SEQUENCE - 3) + [0] * 3],
                                     "int32")[:batch]}


def _with_segments(inputs):
    return {**inputs, "segment_ids": np.zeros_like(inputs["token_ids"])}


def _images(size=32, channels=3):
    return np.random.default_rng(0).random((2, size, size, channels)).astype("float32")


def _seq2seq():
    tokens = _tokens()
    return {"encoder_token_ids": tokens["token_ids"],
            "encoder_padding_mask": tokens["padding_mask"],
            "decoder_token_ids": tokens["token_ids"][:, ::-1].copy(),
            "decoder_padding_mask": tokens["padding_mask"]}


def _whisper():
    rng = np.random.default_rng(0)
    tokens = _tokens()
    return {"encoder_features": rng.normal(size=(2, 16, 8)).astype("float32"),
            "decoder_token_ids": tokens["token_ids"],
            "decoder_padding_mask": tokens["padding_mask"]}


DECODER = dict(vocabulary_size=VOCABULARY, num_layers=2, hidden_dim=16, intermediate_dim=32)

# name: (KerasHub class, its arguments, inputs)
CASES = {
    "gpt2": ("GPT2Backbone", dict(DECODER, num_heads=2, max_sequence_length=SEQUENCE), _tokens),
    "bert": ("BertBackbone", dict(DECODER, num_heads=2, max_sequence_length=SEQUENCE),
             lambda: _with_segments(_tokens())),
    "gemma": ("GemmaBackbone", dict(DECODER, num_query_heads=2, num_key_value_heads=1,
                                    head_dim=8), _tokens),
    "gemma3": ("Gemma3Backbone", dict(DECODER, image_size=16, num_query_heads=2,
                                      num_key_value_heads=1, head_dim=8,
                                      use_sliding_window_attention=True,
                                      sliding_window_size=4), _tokens),
    "llama": ("LlamaBackbone", dict(DECODER, num_query_heads=2, num_key_value_heads=1),
              _tokens),
    "mistral": ("MistralBackbone", dict(DECODER, num_query_heads=2, num_key_value_heads=1,
                                        sliding_window=4), _tokens),
    "qwen3": ("Qwen3Backbone", dict(DECODER, num_query_heads=2, num_key_value_heads=1,
                                    head_dim=8), _tokens),
    "mixtral": ("MixtralBackbone", dict(DECODER, num_query_heads=2, num_key_value_heads=1,
                                        num_experts=4, top_k=2, sliding_window=4), _tokens),
    "t5": ("T5Backbone", dict(DECODER, num_heads=2, key_value_dim=8), _seq2seq),
    "whisper": ("WhisperBackbone", dict(DECODER, num_heads=2, num_mels=8,
                                        max_encoder_sequence_length=16,
                                        max_decoder_sequence_length=SEQUENCE), _whisper),
    "vit": ("ViTBackbone", dict(image_shape=(32, 32, 3), patch_size=8, num_layers=2,
                                num_heads=2, hidden_dim=16, mlp_dim=32), _images),
    "resnet": ("ResNetBackbone", dict(input_conv_filters=[64], input_conv_kernel_sizes=[7],
                                      stackwise_num_filters=[64, 64],
                                      stackwise_num_blocks=[2, 1], stackwise_num_strides=[1, 2],
                                      block_type="bottleneck_block", image_shape=(32, 32, 3)),
               _images),
    "cspnet": ("CSPNetBackbone", dict(stem_filters=16, stem_kernel_size=3, stem_strides=1,
                                      stackwise_strides=2, stackwise_depth=[1, 2],
                                      stackwise_num_filters=[16, 24], down_growth=True,
                                      bottle_ratio=(0.5, 1.0), block_ratio=(1.0, 0.5),
                                      expand_ratio=(2.0, 1.0), block_type="dark_block",
                                      stage_type="csp", stem_padding="same",
                                      image_shape=(32, 32, 3)), _images),
    "efficientnet": ("EfficientNetBackbone", dict(
        stackwise_width_coefficients=[1.0, 1.0], stackwise_depth_coefficients=[1.0, 1.0],
        stackwise_kernel_sizes=[3, 3], stackwise_num_repeats=[1, 2],
        stackwise_input_filters=[8, 8], stackwise_output_filters=[8, 16],
        stackwise_expansion_ratios=[1, 4], stackwise_squeeze_and_excite_ratios=[0.25, 0.25],
        stackwise_strides=[1, 2], stackwise_block_types=["v1", "v1"],
        input_shape=(32, 32, 3)), _images),
}


def build(keras_hub, case):
    class_name, arguments, make_inputs = CASES[case]
    backbone = getattr(keras_hub.models, class_name)(**arguments)
    return backbone, make_inputs()


def outputs(backbone, inputs) -> dict:
    """The backbone's outputs on ``inputs`` as NumPy arrays, by output name."""
    out = backbone(inputs)
    if isinstance(out, dict):
        return {name: np.asarray(value) for name, value in out.items()}
    leaves = out if isinstance(out, (list, tuple)) else [out]
    return {f"output_{i}": np.asarray(value) for i, value in enumerate(leaves)}


FIT_CASE = "llama"
FILE_CASE = "gpt2"


def _fit_step(keras, keras_hub, backbone, inputs):
    """One ``fit`` step of a causal LM on ``backbone``: ``(loss, weights)``."""
    lm = keras_hub.models.LlamaCausalLM(backbone=backbone, preprocessor=None)
    lm.compile(optimizer=keras.optimizers.SGD(0.1),
               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
               weighted_metrics=[])
    history = lm.fit(inputs, np.roll(inputs["token_ids"], -1, axis=1),
                     sample_weight=inputs["padding_mask"], batch_size=2, epochs=1, verbose=0)
    return history.history["loss"][0], [np.asarray(v) for v in lm.weights]


def _lora_fit_step(keras, keras_hub, backbone, inputs, lora_path):
    """KerasHub's ``backbone.enable_lora(2)`` (the attention's query and value kernels),
    the factors ``a`` set to the same values on both systems, one ``fit`` step; the step's
    loss, the names of the trained weights and every weight, and ``save_lora_weights``."""
    backbone.enable_lora(2)
    rng = np.random.default_rng(7)
    for weight in backbone.weights:
        if weight.path.endswith("lora_kernel_a"):
            weight.assign(rng.normal(scale=0.2, size=tuple(weight.shape)).astype("float32"))
    loss, weights = _fit_step(keras, keras_hub, backbone, inputs)
    backbone.save_lora_weights(lora_path)
    # (a weight's path in Keras starts with the scopes its layer was first called in;
    # kgraph's is ``layer/weight``: the last two parts are compared)
    return loss, weights, ["/".join(w.path.split("/")[-2:]) for w in backbone.trainable_weights]


def _compiled_outputs(backbone, inputs) -> dict:
    import jax

    import compiler
    program = compiler.compile(backbone)
    params, state = compiler.variables(backbone)
    out, _ = jax.jit(lambda p, s, x: program.apply(p, s, x, training=False))(
        params, state, inputs)
    out = out if isinstance(out, dict) else {"output_0": out}
    return {f"compiled/{name}": np.asarray(value) for name, value in out.items()}


def main(system, directory):
    import os
    if system == "kgraph":
        import kgraph.compat
        kgraph.compat.install()
    import keras
    import keras_hub

    def path(name):
        return os.path.join(directory, name)

    if system == "keras-load":
        backbone, inputs = build(keras_hub, FILE_CASE)
        loaded = keras.saving.load_model(path("gpt2.kgraph.keras"))
        np.savez(path("file.keras-load.npz"), **outputs(loaded, inputs))
        return
    for case in CASES:
        backbone, inputs = build(keras_hub, case)
        if system == "keras":
            backbone.save_weights(path(f"{case}.weights.h5"))
        else:
            backbone.load_weights(path(f"{case}.weights.h5"))
        results = outputs(backbone, inputs)
        if system == "kgraph":
            results.update(_compiled_outputs(backbone, inputs))
        np.savez(path(f"{case}.{system}.npz"), params=backbone.count_params(), **results)
        if case == FILE_CASE and system == "keras":
            backbone.save(path("gpt2.keras"))
        elif case == FILE_CASE:
            backbone.save(path("gpt2.kgraph.keras"))
            loaded = keras.saving.load_model(path("gpt2.keras"))
            np.savez(path("file.kgraph.npz"), **outputs(loaded, inputs))
        if case == FIT_CASE:
            loss, weights = _fit_step(keras, keras_hub, backbone, inputs)
            np.savez(path(f"fit.{system}.npz"), loss=loss, *weights)
            backbone, inputs = build(keras_hub, case)
            backbone.load_weights(path(f"{case}.weights.h5"))
            loss, weights, trained = _lora_fit_step(keras, keras_hub, backbone, inputs,
                                                    path(f"{case}.{system}.lora.h5"))
            np.savez(path(f"lora.{system}.npz"), loss=loss, trained=np.array(trained),
                     *weights)


if __name__ == "__main__":
    main(*sys.argv[1:3])
