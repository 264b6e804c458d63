"""keras.io/examples/nlp/addition_rnn: a Sequential encoder-decoder learning to add."""
import numpy as np
import keras
from keras import layers

TRAINING_SIZE = 256
DIGITS = 3
MAXLEN = DIGITS + 1 + DIGITS


class CharacterTable:
    def __init__(self, chars):
        self.chars = sorted(set(chars))
        self.char_indices = dict((c, i) for i, c in enumerate(self.chars))
        self.indices_char = dict((i, c) for i, c in enumerate(self.chars))

    def encode(self, C, num_rows):
        x = np.zeros((num_rows, len(self.chars)))
        for i, c in enumerate(C):
            x[i, self.char_indices[c]] = 1
        return x

    def decode(self, x, calc_argmax=True):
        if calc_argmax:
            x = x.argmax(axis=-1)
        return "".join(self.indices_char[x] for x in x)


chars = "0123456789+ "
ctable = CharacterTable(chars)
rng = np.random.default_rng(0)
questions, expected = [], []
while len(questions) < TRAINING_SIZE:
    a, b = int(rng.integers(0, 1000)), int(rng.integers(0, 1000))
    q = "{}+{}".format(a, b)
    questions.append(q + " " * (MAXLEN - len(q)))
    ans = str(a + b)
    expected.append(ans + " " * (DIGITS + 1 - len(ans)))

x = np.zeros((len(questions), MAXLEN, len(chars)), dtype=bool)
y = np.zeros((len(questions), DIGITS + 1, len(chars)), dtype=bool)
for i, sentence in enumerate(questions):
    x[i] = ctable.encode(sentence, MAXLEN)
for i, sentence in enumerate(expected):
    y[i] = ctable.encode(sentence, DIGITS + 1)

split_at = len(x) - len(x) // 10
(x_train, x_val) = x[:split_at], x[split_at:]
(y_train, y_val) = y[:split_at], y[split_at:]

num_layers = 1
model = keras.Sequential()
model.add(layers.Input((MAXLEN, len(chars))))
model.add(layers.LSTM(32))
model.add(layers.RepeatVector(DIGITS + 1))
for _ in range(num_layers):
    model.add(layers.LSTM(32, return_sequences=True))
model.add(layers.Dense(len(chars), activation="softmax"))
model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
model.summary()

for epoch in range(1, 3):
    model.fit(x_train, y_train, batch_size=32, epochs=1, validation_data=(x_val, y_val))
    for i in range(3):
        ind = np.random.randint(0, len(x_val))
        rowx, rowy = x_val[np.array([ind])], y_val[np.array([ind])]
        preds = np.argmax(model.predict(rowx, verbose=0), axis=-1)
        q = ctable.decode(rowx[0])
        correct = ctable.decode(rowy[0])
        guess = ctable.decode(preds[0], calc_argmax=False)
        print("Q", q, end=" ")
        print("T", correct, end=" ")
        print("☑ " + guess if correct == guess else "☒ " + guess)
