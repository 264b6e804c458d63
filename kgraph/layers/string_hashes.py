"""The string hashes of Keras's preprocessing layers, with TensorFlow's numbers:
FarmHash's Fingerprint64 (``to_hash_bucket_fast``: ``Hashing``, ``HashedCrossing``, the
lookups' out-of-vocabulary slots) and, with a ``salt``, SipHash-2-4 keyed by two 64-bit
integers (``to_hash_bucket_strong``).

>>> [siphash64((133, 137), text.encode()) % 3 for text in "ABCDE"]  # Keras's Hashing example
[1, 2, 1, 0, 2]
"""

from __future__ import annotations

__all__ = ["fingerprint64", "salt_key", "siphash64"]

_MASK = (1 << 64) - 1


def fingerprint64(text) -> int:
    """FarmHash's Fingerprint64 of ``text`` (Keras's string hash: ``Hashing``, lookups'
    out-of-vocabulary slots), through pyfarmhash."""
    try:
        import farmhash  # an optional dependency (the ``preprocessing`` extra)
    except ImportError as error:
        raise ImportError("Keras hashes strings with FarmHash: install pyfarmhash "
                          "(`pip install pyfarmhash`, or the extra "
                          "`pip install kgraph[preprocessing]`).") from error
    return farmhash.fingerprint64(text)


def salt_key(salt, owner) -> list | None:
    """Keras's ``salt`` argument as the hash key ``[k0, k1]``: one integer is used twice;
    None stays None (no salt: Fingerprint64)."""
    if salt is None:
        return None
    if isinstance(salt, (tuple, list)) and len(salt) == 2 and all(
            isinstance(s, int) and not isinstance(s, bool) for s in salt):
        return list(salt)
    if isinstance(salt, int) and not isinstance(salt, bool):
        return [salt, salt]
    size = "size 2 integers" if owner == "Hashing" else "2 integers"  # Keras's two messages
    raise ValueError(f"The `salt` argument for `{owner}` can only be a tuple of {size}, or a "
                     f"single integer. Received: salt={salt!r}.")


def _rotate(x, bits):
    return ((x << bits) | (x >> (64 - bits))) & _MASK


def siphash64(key, data: bytes) -> int:
    """SipHash-2-4 of ``data`` keyed by ``key = (k0, k1)`` (TensorFlow's
    ``to_hash_bucket_strong`` takes the result modulo the buckets)."""
    k0, k1 = (int(k) & _MASK for k in key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rounds(count):
        for _ in range(count):
            v[0] = (v[0] + v[1]) & _MASK
            v[1] = _rotate(v[1], 13) ^ v[0]
            v[0] = _rotate(v[0], 32)
            v[2] = (v[2] + v[3]) & _MASK
            v[3] = _rotate(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & _MASK
            v[3] = _rotate(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & _MASK
            v[1] = _rotate(v[1], 17) ^ v[2]
            v[2] = _rotate(v[2], 32)

    whole = len(data) - len(data) % 8
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, whole, 8)]
    words.append(int.from_bytes(data[whole:], "little") | ((len(data) & 0xFF) << 56))
    for word in words:
        v[3] ^= word
        rounds(2)
        v[0] ^= word
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]
