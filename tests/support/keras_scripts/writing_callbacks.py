"""keras.io/guides/writing_your_own_callbacks: hooks, logs, LR schedule, early stopping."""
import numpy as np
import keras


def get_model():
    model = keras.Sequential()
    model.add(keras.layers.Dense(1))
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


rng = np.random.default_rng(0)
x_train = rng.random((1000, 784)).astype("float32")
y_train = rng.random((1000,)).astype("float32")
x_test, y_test = x_train[:200], y_train[:200]
x_train = x_train[:1000]
y_train = y_train[:1000]
x_test = x_test[:1000]
y_test = y_test[:1000]

calls = []


class CustomCallback(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_train_begin", keys))

    def on_train_end(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_train_end", keys))

    def on_epoch_begin(self, epoch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_epoch_begin", keys))

    def on_epoch_end(self, epoch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_epoch_end", keys))

    def on_test_begin(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_test_begin", keys))

    def on_test_end(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_test_end", keys))

    def on_predict_begin(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_predict_begin", keys))

    def on_predict_end(self, logs=None):
        keys = list(logs.keys())
        calls.append(("on_predict_end", keys))

    def on_train_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_train_batch_begin", keys))

    def on_train_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_train_batch_end", keys))

    def on_test_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_test_batch_begin", keys))

    def on_test_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_test_batch_end", keys))

    def on_predict_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_predict_batch_begin", keys))

    def on_predict_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        calls.append(("on_predict_batch_end", keys))


model = get_model()
model.fit(
    x_train,
    y_train,
    batch_size=128,
    epochs=1,
    verbose=0,
    validation_split=0.5,
    callbacks=[CustomCallback()],
)
res = model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])
res = model.predict(x_test, batch_size=128, callbacks=[CustomCallback()])
hooks = {name for name, _ in calls}
assert len(hooks) == 14, hooks


class LossAndErrorPrintingCallback(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print(f"Up to batch {batch}, the average loss is {logs['loss']:7.2f}.")

    def on_test_batch_end(self, batch, logs=None):
        print(f"Up to batch {batch}, the average loss is {logs['loss']:7.2f}.")

    def on_epoch_end(self, epoch, logs=None):
        print(
            f"The average loss for epoch {epoch} is {logs['loss']:7.2f} "
            f"and mean absolute error is {logs['mean_absolute_error']:7.2f}."
        )


model = get_model()
model.fit(x_train, y_train, batch_size=128, epochs=2, verbose=0,
          callbacks=[LossAndErrorPrintingCallback()])


class EarlyStoppingAtMinLoss(keras.callbacks.Callback):
    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class CustomLearningRateScheduler(keras.callbacks.Callback):
    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = self.model.optimizer.learning_rate
        scheduled_lr = self.schedule(epoch, lr)
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch}: Learning rate is {float(np.array(scheduled_lr))}.")


LR_SCHEDULE = [(3, 0.05), (6, 0.01)]


def lr_schedule(epoch, lr):
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


model = get_model()
model.fit(
    x_train,
    y_train,
    batch_size=64,
    epochs=5,
    verbose=0,
    callbacks=[
        LossAndErrorPrintingCallback(),
        CustomLearningRateScheduler(lr_schedule),
        EarlyStoppingAtMinLoss(),
    ],
)
assert abs(float(np.array(model.optimizer.learning_rate)) - 0.05) < 1e-7

model = get_model()
history = model.fit(x_train, y_train, batch_size=128, epochs=3, verbose=0, callbacks=[
    keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)])
assert np.allclose(history.history["learning_rate"], [0.05, 0.025, 0.0125])
