"""keras.io/examples/vision/mnist_convnet (synthetic MNIST-shaped data)."""
import numpy as np
import keras
from keras import layers

num_classes = 10
input_shape = (28, 28, 1)

rng = np.random.default_rng(0)
x_train = rng.integers(0, 256, (512, 28, 28)).astype("uint8")
y_train = rng.integers(0, 10, (512,))
x_test, y_test = x_train[:128], y_train[:128]

x_train = x_train.astype("float32") / 255
x_test = x_test.astype("float32") / 255
x_train = np.expand_dims(x_train, -1)
x_test = np.expand_dims(x_test, -1)
print("x_train shape:", x_train.shape)

y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = keras.Sequential(
    [
        keras.Input(shape=input_shape),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ]
)
model.summary()
assert model.count_params() == 34826

batch_size = 128
epochs = 2
model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.1)
score = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", score[0])
print("Test accuracy:", score[1])
assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
