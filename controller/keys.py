"""The rig's signing key: one Ed25519 key per rig, made once and kept owner-only in the data folder.

It signs the journal's receipts (``controller.receipts``), so that anyone holding a receipt can check
that this rig issued it without the journal. ``rig-key`` (PKCS#8 PEM, mode 0600) holds the private key;
``rig-key.pub`` (hex, readable) the public one, which ``hongsi log key`` shows.

>>> key = RigKey.load_or_create(tmp)                          # doctest: +SKIP
>>> verify(key.public_hex, b"hello", key.sign(b"hello"))       # doctest: +SKIP
True
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEY_FILE = "rig-key"
PUB_FILE = "rig-key.pub"


class RigKeyError(RuntimeError):
    """The rig's key cannot be read or made (a damaged file, a folder nobody may write)."""


class RigKey:
    """The rig's private key (signs) and its public half (hex, 64 characters)."""

    def __init__(self, private: Ed25519PrivateKey):
        self._private = private
        raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_hex = raw.hex()

    def sign(self, message: bytes) -> str:
        return self._private.sign(message).hex()

    @classmethod
    def load_or_create(cls, folder: Path | str) -> RigKey:
        """The key in ``folder``; made there (0600) the first time. Two processes racing both end up
        with the one that reached the disk first (the file appears whole or not at all)."""
        folder = Path(folder).expanduser()
        path = folder / KEY_FILE
        if not path.exists():
            _create(path)
        try:
            private = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (OSError, ValueError) as exc:
            raise RigKeyError(f"cannot read the rig's key {path}: {exc}") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise RigKeyError(f"{path} is not an Ed25519 key")
        key = cls(private)
        pub = folder / PUB_FILE
        if not pub.exists() or pub.read_text().strip() != key.public_hex:
            try:
                pub.write_text(key.public_hex + "\n")
            except OSError:   # a read-only copy: the private file still tells
                pass
        return key


def _create(path: Path) -> None:
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # never readable by others, not even briefly
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)          # atomic, and refuses to replace a key another process made
        except FileExistsError:
            pass
    except OSError as exc:
        raise RigKeyError(f"cannot make the rig's key in {path.parent}: {exc.strerror or exc}") from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass


def public_key_of(folder: Path | str) -> str | None:
    """The rig's public key (hex) as kept in ``folder``, without making one; None if there is none."""
    folder = Path(folder).expanduser()
    pub = folder / PUB_FILE
    try:
        text = pub.read_text().strip()
        if len(text) == 64 and bytes.fromhex(text):
            return text
    except (OSError, ValueError):
        pass
    if (folder / KEY_FILE).exists():
        try:
            return RigKey.load_or_create(folder).public_hex
        except RigKeyError:
            return None
    return None


def verify(public_hex: str, message: bytes, signature_hex: str) -> bool:
    """Whether ``signature_hex`` is ``public_hex``'s Ed25519 signature of ``message``."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        key.verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
