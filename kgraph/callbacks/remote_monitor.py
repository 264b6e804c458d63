"""``RemoteMonitor``: Keras's callback that posts each epoch's logs to a server.

The request is Keras's: ``POST root + path`` with the form field ``field`` holding the JSON
of ``{"epoch": ..., **logs}``, or that JSON as the body with ``send_as_json=True``. It is sent
with ``requests`` as Keras sends it (``requests.post``), or, without ``requests`` installed,
with the standard library's ``urllib``. A server that cannot be reached is a warning, not an
error: training goes on.

>>> monitor = RemoteMonitor(root="http://127.0.0.1:9", path="/epoch")
>>> monitor.root + monitor.path
'http://127.0.0.1:9/epoch'
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from kgraph.callbacks.callback import Callback

try:
    import requests
except ImportError:  # the standard library's urllib sends instead
    requests = None

__all__ = ["RemoteMonitor"]


class RemoteMonitor(Callback):
    """Post ``{"epoch": epoch, **logs}`` to ``root + path`` at the end of every epoch.

    Args:
      root: the server's address. path: the path to post to.
      field: the form field that holds the JSON (unless ``send_as_json``).
      headers: extra HTTP headers. send_as_json: send the JSON itself as the body.
      timeout: seconds to wait for the server (kgraph's addition); None waits as Keras
        does, as long as the connection lasts.
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False, timeout=None):
        super().__init__()
        self.root, self.path, self.field = root, path, field
        self.headers, self.send_as_json, self.timeout = headers, send_as_json, timeout

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for name, value in (logs or {}).items():
            send[name] = value.item() if isinstance(value, (np.ndarray, np.generic)) or \
                hasattr(value, "item") else value
        if requests is not None:
            self._post_with_requests(send)
        else:
            self._post_with_urllib(send)

    def _post_with_requests(self, send):
        timeout = {} if self.timeout is None else {"timeout": self.timeout}
        try:
            if self.send_as_json:
                requests.post(self.root + self.path, json=send, headers=self.headers,
                              **timeout)
            else:
                requests.post(self.root + self.path, {self.field: json.dumps(send)},
                              headers=self.headers, **timeout)
        except requests.exceptions.RequestException:
            self._warn_unreachable()

    def _post_with_urllib(self, send):
        if self.send_as_json:
            body = json.dumps(send).encode()
            content_type = "application/json"
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            content_type = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.root + self.path, data=body, method="POST",
                                         headers={"Content-Type": content_type,
                                                  **(self.headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()
        except urllib.error.HTTPError:
            pass  # the server answered (with an error status): as Keras, no warning
        except (urllib.error.URLError, OSError, ValueError):
            self._warn_unreachable()

    def _warn_unreachable(self):
        warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}",
                      stacklevel=3)
