"""``get_file``: download a file once into Keras's cache folder, check its hash, extract
archives safely.

The cache is Keras's (``$KERAS_HOME`` or ``~/.keras``, else ``/tmp/.keras``), so files Keras
downloaded are reused. Downloads go to a temporary file renamed into place only when
complete and verified, so an interrupted download never leaves a file that looks finished.
Extraction refuses archive members that would land outside the target folder (absolute
paths, ``..``, links pointing out).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "data.txt").write_text("hello") and None
>>> path = get_file(origin=(folder / "data.txt").as_uri(),  # doctest: +ELLIPSIS
...                 cache_dir=str(folder / "cache"))
Downloading data from file://...
>>> pathlib.Path(path).read_text()
'hello'
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

__all__ = ["File", "copy", "exists", "extract_archive", "get_file", "is_remote_path", "isdir",
           "join", "keras_home", "listdir", "makedirs", "path_to_string", "remove", "rmtree",
           "validate_file"]

_REMOTE = re.compile(r"^(/cns|/cfs|/gcs|/hdfs|/readahead|/placer|/tfhub|.*://).*$")


def is_remote_path(filepath) -> bool:
    """Whether ``filepath`` names a remote location (``gs://...``, ``/gcs/...``, a URL)."""
    return bool(_REMOTE.match(str(filepath)))


def path_to_string(path):
    """A path-like object as its string; anything else (a file object) as it is."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


def _local(path):
    if is_remote_path(path):
        raise ValueError(f"kgraph reads and writes local files; received the remote path "
                         f"{path}. Copy it to a local path first.")
    return path


def exists(path) -> bool:
    return os.path.exists(_local(path))


def File(path, mode="r"):  # noqa: N802 - Keras's name
    """``open(path, mode)`` for a local path."""
    return open(_local(path), mode=mode)


def join(path, *paths) -> str:
    return os.path.join(_local(path), *paths)


def isdir(path) -> bool:
    return os.path.isdir(_local(path))


def remove(path) -> None:
    os.remove(_local(path))


def rmtree(path) -> None:
    shutil.rmtree(_local(path))


def listdir(path) -> list:
    return os.listdir(_local(path))


def copy(src, dst):
    return shutil.copy(_local(src), _local(dst))


def makedirs(path) -> None:
    os.makedirs(_local(path))


def keras_home() -> str:
    """Keras's cache folder: ``$KERAS_HOME``, or ``~/.keras`` (``/tmp/.keras`` if the home
    folder is not writable)."""
    if "KERAS_HOME" in os.environ:
        return os.environ["KERAS_HOME"]
    base = os.path.expanduser("~")
    return os.path.join(base if os.access(base, os.W_OK) else "/tmp", ".keras")


def _hasher(algorithm, file_hash):
    if algorithm == "sha256" or (algorithm == "auto" and file_hash and len(file_hash) == 64):
        return hashlib.sha256()
    return hashlib.md5()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535) -> bool:
    """Whether ``fpath``'s md5/sha256 (by ``algorithm``, or by the hash's length) is
    ``file_hash``."""
    hasher = _hasher(algorithm, file_hash)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest() == str(file_hash)


def _inside(root, target) -> bool:
    root, target = os.path.realpath(root), os.path.realpath(target)
    return os.path.commonpath([root, target]) == root


def extract_archive(file_path, path, archive_format="auto") -> bool:
    """Extract a tar or zip archive into ``path``; members escaping it are an error."""
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                for member in archive.getmembers():
                    if not _inside(path, os.path.join(path, member.name)) or (
                            (member.issym() or member.islnk()) and not _inside(
                                path, os.path.join(path, os.path.dirname(member.name),
                                                   member.linkname))):
                        raise ValueError(f"Refusing to extract {file_path!r}: member "
                                         f"{member.name!r} would be written outside {path!r}.")
                os.makedirs(path, exist_ok=True)
                archive.extractall(path, filter="data")
            return True
        if kind == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                for name in archive.namelist():
                    if not _inside(path, os.path.join(path, name)):
                        raise ValueError(f"Refusing to extract {file_path!r}: member {name!r} "
                                         f"would be written outside {path!r}.")
                os.makedirs(path, exist_ok=True)
                archive.extractall(path)
            return True
    return False


def _download(origin, target):
    folder = os.path.dirname(target)
    handle, partial = tempfile.mkstemp(dir=folder, prefix=".download-")
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(origin) as response:
            total = response.headers.get("Content-Length")
            from tqdm.auto import tqdm

            with tqdm(total=int(total) if total else None, unit="B", unit_scale=True,
                      desc=os.path.basename(target), leave=False) as bar:
                for chunk in iter(lambda: response.read(1 << 16), b""):
                    out.write(chunk)
                    bar.update(len(chunk))
        return partial
    except (urllib.error.HTTPError, urllib.error.URLError) as error:
        os.remove(partial)
        raise Exception(f"URL fetch failure on {origin}: {error}") from error
    except BaseException:
        os.remove(partial)
        raise


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """The local path of ``origin``'s file (downloaded into ``cache_dir/cache_subdir`` if
    absent, or if its hash does not match); with ``extract`` (or ``untar``), the folder it
    was extracted into. Keras's arguments, names and folders."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir or keras_home())
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        pass
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp", ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    provided = fname
    fname = os.fspath(fname) if fname else os.path.basename(urllib.parse.urlsplit(origin).path)
    if not fname:
        raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'. "
                         "Please specify the `fname` argument.")
    if provided and os.sep in fname:
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify "
                         "the file's parent directory, use the `cache_dir` argument. "
                         f"Received: fname={fname}")
    if extract or untar:
        if provided and "." in fname:
            target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, f"{fname[:fname.find('.')]}_extracted")
        else:
            target = os.path.join(datadir, f"{fname}_archive")
            extraction_dir = os.path.join(datadir, fname)
    else:
        target = os.path.join(datadir, fname)
    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash,
                                                                   hash_algorithm):
        print(f"A local file was found, but it seems to be incomplete or outdated because "
              f"the file hash does not match the original value of {file_hash} so we will "
              "re-download the data.")
        download = True
    if download:
        print(f"Downloading data from {origin}")
        partial = _download(origin, target)
        if file_hash is not None and not validate_file(partial, file_hash, hash_algorithm):
            os.remove(partial)
            raise ValueError("Incomplete or corrupted file detected. The file hash does not "
                             f"match the provided value of {file_hash}.")
        os.replace(partial, target)
    if extract or untar:
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            raise ValueError(f"Could not extract archive {target!r}.")
        return extraction_dir
    return target

