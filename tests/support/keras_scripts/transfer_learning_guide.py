"""keras.io/guides/transfer_learning: freezing, training=False, fine-tuning."""
import numpy as np
import keras
from keras import layers

layer = keras.layers.Dense(3)
layer.build((None, 4))  # Create the weights
print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

layer = keras.layers.BatchNormalization()
layer.build((None, 4))  # Create the weights
assert len(layer.trainable_weights) == 2 and len(layer.non_trainable_weights) == 2

layer = keras.layers.Dense(3)
layer.build((None, 4))  # Create the weights
layer.trainable = False  # Freeze the layer
assert len(layer.trainable_weights) == 0 and len(layer.non_trainable_weights) == 2

# Make a model with 2 layers
layer1 = keras.layers.Dense(3, activation="relu")
layer2 = keras.layers.Dense(3, activation="sigmoid")
model = keras.Sequential([keras.Input(shape=(3,)), layer1, layer2])

# Freeze the first layer
layer1.trainable = False

# Keep a copy of the weights of layer1 for later reference
initial_layer1_weights_values = layer1.get_weights()

# Train the model
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.random((2, 3)), np.random.random((2, 3)))

# Check that the weights of layer1 have not changed during training
final_layer1_weights_values = layer1.get_weights()
np.testing.assert_allclose(
    initial_layer1_weights_values[0], final_layer1_weights_values[0]
)
np.testing.assert_allclose(
    initial_layer1_weights_values[1], final_layer1_weights_values[1]
)

inner_model = keras.Sequential(
    [
        keras.Input(shape=(3,)),
        keras.layers.Dense(3, activation="relu"),
        keras.layers.Dense(3, activation="relu"),
    ]
)
model = keras.Sequential(
    [
        keras.Input(shape=(3,)),
        inner_model,
        keras.layers.Dense(3, activation="sigmoid"),
    ]
)
model.trainable = False  # Freeze the outer model
assert inner_model.trainable == False  # noqa: E712
assert inner_model.layers[0].trainable == False  # noqa: E712

# A frozen base model called with training=False, then fine-tuned.
base_model = keras.Sequential(
    [keras.Input(shape=(16, 16, 3)), layers.Conv2D(8, 3, activation="relu"),
     layers.BatchNormalization(), layers.GlobalAveragePooling2D()], name="base")
base_model.trainable = False
inputs = keras.Input(shape=(16, 16, 3))
x = base_model(inputs, training=False)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile(
    optimizer=keras.optimizers.Adam(),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=[keras.metrics.BinaryAccuracy()],
)
x_data = np.random.random((32, 16, 16, 3)).astype("float32")
y_data = np.random.randint(0, 2, (32, 1)).astype("float32")
model.fit(x_data, y_data, epochs=1)
base_model.trainable = True
model.compile(
    optimizer=keras.optimizers.Adam(1e-5),  # Very low learning rate
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=[keras.metrics.BinaryAccuracy()],
)
model.fit(x_data, y_data, epochs=1)
