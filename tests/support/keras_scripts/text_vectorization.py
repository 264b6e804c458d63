"""keras.io/examples/nlp/text_classification_from_scratch, with NumPy text instead of tf.data."""
import string
import re

import numpy as np
import keras
from keras import layers

rng = np.random.default_rng(0)
words = ["good", "bad", "movie", "plot", "great", "awful", "<br />", "Acting", "fun!"]
texts = np.array([" ".join(rng.choice(words, rng.integers(3, 20))) for _ in range(128)])
labels = rng.integers(0, 2, (128,))

max_features = 20
embedding_dim = 16
sequence_length = 25


def custom_standardization(input_data):
    lowercase = np.char.lower(input_data)
    stripped_html = np.char.replace(lowercase, "<br />", " ")
    # (adapt gives the texts as a column, (n, 1), as Keras's does)
    strip = np.vectorize(lambda s: re.sub(f"[{re.escape(string.punctuation)}]", "", s),
                         otypes=[str])
    return strip(stripped_html)


vectorize_layer = keras.layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length,
)
vectorize_layer.adapt(texts)
x = vectorize_layer(texts)
assert x.shape == (128, sequence_length)
vocabulary = vectorize_layer.get_vocabulary()
assert vocabulary[:2] == ["", "[UNK]"] and "good" in vocabulary

inputs = keras.Input(shape=(None,), dtype="int64")
h = layers.Embedding(max_features, embedding_dim)(inputs)
h = layers.Dropout(0.5)(h)
h = layers.Conv1D(16, 7, padding="valid", activation="relu", strides=3)(h)
h = layers.Conv1D(16, 7, padding="valid", activation="relu", strides=3)(h)
h = layers.GlobalMaxPooling1D()(h)
h = layers.Dense(16, activation="relu")(h)
h = layers.Dropout(0.5)(h)
predictions = layers.Dense(1, activation="sigmoid", name="predictions")(h)
model = keras.Model(inputs, predictions)
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(np.asarray(x), labels, epochs=2, batch_size=32, validation_split=0.25)

lookup = layers.StringLookup(vocabulary=["a", "b", "c"])
assert np.asarray(lookup(np.array([["a", "c", "z"]]))).tolist() == [[1, 3, 0]]
