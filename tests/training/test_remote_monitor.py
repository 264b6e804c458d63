"""``RemoteMonitor`` posts each epoch's logs as Keras does (form field or JSON body) to a
local server, and only warns when the server cannot be reached: with ``requests`` (Keras's
way) and, where it is not installed, with the standard library's ``urllib``."""

import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import kgraph as kg
from kgraph.callbacks import remote_monitor


@pytest.fixture(params=["requests", "urllib"], autouse=True)
def sender(request, monkeypatch):
    if request.param == "urllib":
        monkeypatch.setattr(remote_monitor, "requests", None)
    return request.param


@pytest.fixture
def server():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], self.headers.get("X-Run"),
                             body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", received
    httpd.shutdown()


def _model():
    x = kg.Input((2,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile("sgd", "mse", metrics=["mae"])
    return model


def test_each_epoch_is_posted_as_a_form_field_or_json(server):
    root, received = server
    data = (np.ones((8, 2), "float32"), np.zeros((8, 1), "float32"))
    _model().fit(*data, epochs=2, verbose=0, callbacks=[
        kg.callbacks.RemoteMonitor(root=root, path="/form", headers={"X-Run": "a"})])
    _model().fit(*data, epochs=1, verbose=0, callbacks=[
        kg.callbacks.RemoteMonitor(root=root, path="/json", send_as_json=True)])
    assert [r[0] for r in received] == ["/form", "/form", "/json"]
    form = urllib.parse.parse_qs(received[1][3].decode())
    sent = json.loads(form["data"][0])
    assert received[1][1] == "application/x-www-form-urlencoded" and received[1][2] == "a"
    assert sent["epoch"] == 1 and set(sent) == {"epoch", "loss", "mae"}
    assert isinstance(sent["loss"], float)
    as_json = json.loads(received[2][3])
    assert received[2][1] == "application/json" and as_json["epoch"] == 0


def test_an_unreachable_server_is_a_warning():
    monitor = kg.callbacks.RemoteMonitor(root="http://127.0.0.1:1", timeout=2)
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor root server"):
        monitor.on_epoch_end(0, {"loss": np.float32(0.5)})
