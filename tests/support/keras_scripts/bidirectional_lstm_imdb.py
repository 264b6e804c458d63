"""keras.io/examples/nlp/bidirectional_lstm_imdb (synthetic IMDB-shaped data)."""
import numpy as np
import keras
from keras import layers

max_features = 2000
maxlen = 50

inputs = keras.Input(shape=(None,), dtype="int32")
x = layers.Embedding(max_features, 16)(inputs)
x = layers.Bidirectional(layers.LSTM(16, return_sequences=True))(x)
x = layers.Bidirectional(layers.LSTM(16))(x)
outputs = layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.summary()

rng = np.random.default_rng(0)
x_train = [list(rng.integers(1, max_features, rng.integers(5, 80))) for _ in range(256)]
y_train = rng.integers(0, 2, (256,))
x_val, y_val = x_train[:64], y_train[:64]
print(len(x_train), "Training sequences")
x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)
assert x_train.shape == (256, maxlen)

model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=32, epochs=1, validation_data=(x_val, y_val))
