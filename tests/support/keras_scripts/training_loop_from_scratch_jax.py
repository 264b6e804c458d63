"""keras.io/guides/writing_a_custom_training_loop_in_jax (synthetic MNIST-shaped data)."""
import jax
import numpy as np
import keras


def get_model():
    inputs = keras.Input(shape=(784,), name="digits")
    x1 = keras.layers.Dense(64, activation="relu")(inputs)
    x2 = keras.layers.Dense(64, activation="relu")(x1)
    outputs = keras.layers.Dense(10, name="predictions")(x2)
    model = keras.Model(inputs=inputs, outputs=outputs)
    return model


model = get_model()

batch_size = 32
rng = np.random.default_rng(0)
x_train = rng.random((320, 784)).astype("float32")
y_train = rng.integers(0, 10, (320,))

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=1e-3)


def compute_loss_and_updates(trainable_variables, non_trainable_variables, x, y):
    y_pred, non_trainable_variables = model.stateless_call(
        trainable_variables, non_trainable_variables, x, training=True
    )
    loss = loss_fn(y, y_pred)
    return loss, non_trainable_variables


grad_fn = jax.value_and_grad(compute_loss_and_updates, has_aux=True)


@jax.jit
def train_step(state, data):
    trainable_variables, non_trainable_variables, optimizer_variables = state
    x, y = data
    (loss, non_trainable_variables), grads = grad_fn(
        trainable_variables, non_trainable_variables, x, y
    )
    trainable_variables, optimizer_variables = optimizer.stateless_apply(
        optimizer_variables, grads, trainable_variables
    )
    # Return updated state
    return loss, (
        trainable_variables,
        non_trainable_variables,
        optimizer_variables,
    )


optimizer.build(model.trainable_variables)

trainable_variables = [v.value for v in model.trainable_variables]
non_trainable_variables = [v.value for v in model.non_trainable_variables]
optimizer_variables = [v.value for v in optimizer.variables]
state = trainable_variables, non_trainable_variables, optimizer_variables

losses = []
for step in range(30):
    start = (step * batch_size) % len(x_train)
    data = (x_train[start:start + batch_size], y_train[start:start + batch_size])
    loss, state = train_step(state, data)
    losses.append(float(loss))
    if step % 10 == 0:
        print(f"Training loss (for 1 batch) at step {step}: {float(loss):.4f}")

trainable_variables, non_trainable_variables, optimizer_variables = state
for variable, value in zip(model.trainable_variables, trainable_variables):
    variable.assign(value)
for variable, value in zip(model.non_trainable_variables, non_trainable_variables):
    variable.assign(value)
assert np.mean(losses[-5:]) < np.mean(losses[:5])

# Metrics, the stateless way.
train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
metric_variables = train_acc_metric.variables
y_pred = model(x_train[:64])
metric_variables = train_acc_metric.stateless_update_state(
    metric_variables, y_train[:64], y_pred)
acc = float(train_acc_metric.stateless_result(metric_variables))
assert 0.0 <= acc <= 1.0
train_acc_metric.update_state(y_train[:64], y_pred)
assert abs(float(train_acc_metric.result()) - acc) < 1e-6
train_acc_metric.reset_state()
