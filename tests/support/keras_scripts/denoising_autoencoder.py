"""keras.io/examples/vision/autoencoder (synthetic MNIST-shaped data)."""
import numpy as np
import keras
from keras import layers
from keras.models import Model


def preprocess(array):
    array = array.astype("float32") / 255.0
    array = np.reshape(array, (len(array), 28, 28, 1))
    return array


def noise(array):
    noise_factor = 0.4
    noisy_array = array + noise_factor * np.random.normal(loc=0.0, scale=1.0, size=array.shape)
    return np.clip(noisy_array, 0.0, 1.0)


rng = np.random.default_rng(0)
train_data = preprocess(rng.integers(0, 256, (64, 28, 28)))
test_data = preprocess(rng.integers(0, 256, (16, 28, 28)))
noisy_train_data = noise(train_data)
noisy_test_data = noise(test_data)

input = layers.Input(shape=(28, 28, 1))

# Encoder
x = layers.Conv2D(32, (3, 3), activation="relu", padding="same")(input)
x = layers.MaxPooling2D((2, 2), padding="same")(x)
x = layers.Conv2D(32, (3, 3), activation="relu", padding="same")(x)
x = layers.MaxPooling2D((2, 2), padding="same")(x)

# Decoder
x = layers.Conv2DTranspose(32, (3, 3), strides=2, activation="relu", padding="same")(x)
x = layers.Conv2DTranspose(32, (3, 3), strides=2, activation="relu", padding="same")(x)
x = layers.Conv2D(1, (3, 3), activation="sigmoid", padding="same")(x)

# Autoencoder
autoencoder = Model(input, x)
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
autoencoder.summary()

autoencoder.fit(
    x=train_data,
    y=train_data,
    epochs=1,
    batch_size=32,
    shuffle=True,
    validation_data=(test_data, test_data),
)
predictions = autoencoder.predict(test_data)
assert predictions.shape == (16, 28, 28, 1)
autoencoder.fit(
    x=noisy_train_data,
    y=train_data,
    epochs=1,
    batch_size=32,
    shuffle=True,
    validation_data=(noisy_test_data, test_data),
)
