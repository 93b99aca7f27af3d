"""A bot folder as a sealed snapshot: caps, refusals, links, digests, read-only modes, pack and unpack."""

from __future__ import annotations

import io
import os
import socket
import stat
import tarfile
from pathlib import Path

import pytest

from harness.bots.build import seal_bot
from harness.bots.manifest import folder_digest, load_bot
from harness.bots.packing import pack, unpack, unpack_stream
from harness.bots.snapshot import Caps, SnapshotStore, digest_of, remove_tree, scan
from harness.errors import HarnessError


def _bot(folder: Path, build: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    manifest = 'name = "b"\ncommand = ["python3", "bot.py"]\n'
    if build:
        manifest += f"build = {build}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder


def _deep(folder: Path, levels: int) -> None:
    """``levels`` nested folders, made relative to each other (no path grows past PATH_MAX)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("a", dir_fd=fd)
            deeper = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)


# -- caps --------------------------------------------------------------------------


def test_a_folder_1200_levels_deep_is_one_line_not_a_recursion_error(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "deep")
    _deep(folder, 1200)
    try:
        with pytest.raises(HarnessError) as caught:
            folder_digest(folder, "bot 'deep'")
    finally:
        remove_tree(folder)  # iterative too: shutil.rmtree (and pytest's clean-up) recurse
    message = str(caught.value)
    assert message.startswith("bot 'deep': its folder is over 64 levels deep (at 'a/a/a"), message
    assert "\n" not in message and len(message) < 300
    assert not folder.exists()


@pytest.mark.parametrize(
    ("caps", "needle"),
    [
        (Caps(depth=2), "is over 2 levels deep"),
        (Caps(files=3), "holds over 3 files"),
        (Caps(entries=4), "holds over 4 files, folders and links"),
        (Caps(bytes=1000), "holds over 0 MB"),
    ],
)
def test_each_cap_refuses_a_folder_over_it_in_one_line(tmp_path: Path, caps: Caps, needle: str) -> None:
    folder = _bot(tmp_path / "bot")
    (folder / "x" / "y" / "z").mkdir(parents=True)
    (folder / "x" / "one").write_bytes(b"1" * 600)
    (folder / "x" / "two").write_bytes(b"2" * 600)
    scan(folder, "bot 'b'")  # under the default caps: fine
    with pytest.raises(HarnessError, match=f"^bot 'b': its folder {needle}"):
        scan(folder, "bot 'b'", caps)


# -- refusals and links ------------------------------------------------------------


def test_fifos_and_sockets_are_refused_and_never_opened(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "fifo")
    os.mkfifo(folder / "pipe")
    with pytest.raises(HarnessError, match=r"^bot 'b': 'pipe' is a FIFO: a bot folder holds files, folders and links only$"):
        scan(folder, "bot 'b'")
    folder = _bot(tmp_path / "sock")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "s"))
        with pytest.raises(HarnessError, match="'s' is a socket"):
            scan(folder, "bot 'b'")


@pytest.mark.parametrize(
    "links",
    [
        {"rival": "../c/bot"},  # a rival's binary
        {"abs": "/bin/sh"},  # absolute: outside once copied
        {"d": ".", "e": "d/d/d/.."},  # lexically inside, but `..` after a link to . leaves
        {"sub/up": "../../x"},
        {"loop": "loop"},  # never resolves
    ],
)
def test_a_symlink_that_leaves_the_folder_is_refused(tmp_path: Path, links: dict[str, str]) -> None:
    folder = _bot(tmp_path / "bot")
    (folder / "sub").mkdir()
    for name, target in links.items():
        (folder / name).symlink_to(target)
    with pytest.raises(HarnessError, match=r"is a symbolic link out of its folder \(-> "):
        scan(folder, "bot 'b'")


def test_a_symlink_inside_the_folder_is_kept_as_a_link(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bot")
    (folder / "lib").mkdir()
    (folder / "lib" / "code.py").write_text("x = 1\n")
    (folder / "run").symlink_to("lib/../bot.py")
    (folder / "lib" / "self").symlink_to("../lib")
    store = SnapshotStore(tmp_path / "store")
    staging = store.staging()
    digest = digest_of(scan(folder, "bot 'b'", dest=staging))
    snapshot = store.publish(staging, digest)
    assert os.readlink(snapshot / "run") == "lib/../bot.py"
    assert (snapshot / "run").read_text() == "print('hi')\n"


# -- digests -----------------------------------------------------------------------


def test_the_digest_covers_pycache_dotfiles_the_executable_bit_and_links(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bot")
    (folder / "__pycache__").mkdir()
    pyc = folder / "__pycache__" / "bot.cpython-311.pyc"
    pyc.write_bytes(b"one")
    (folder / ".env").write_text("A=1\n")
    (folder / "link").symlink_to("bot.py")
    seen = {folder_digest(folder)}
    pyc.write_bytes(b"two")  # an unchecked-hash .pyc swapped: another program
    seen.add(folder_digest(folder))
    (folder / ".env").write_text("A=2\n")
    seen.add(folder_digest(folder))
    (folder / "bot.py").chmod(0o755)
    seen.add(folder_digest(folder))
    (folder / "link").unlink()
    (folder / "link").symlink_to("./bot.py")
    seen.add(folder_digest(folder))
    assert len(seen) == 5


def test_the_digest_is_the_same_for_the_same_contents_anywhere_and_any_time(tmp_path: Path) -> None:
    one = _bot(tmp_path / "one")
    two = _bot(tmp_path / "elsewhere" / "two")
    os.utime(two / "bot.py", (1, 1))
    (one / "bot.py").chmod(0o600)  # only the executable bit counts
    assert folder_digest(one) == folder_digest(two)


# -- the snapshot ------------------------------------------------------------------


def test_a_sealed_bot_runs_from_a_read_only_snapshot_whose_digest_is_its_folder(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bot")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    spec = load_bot(folder)
    sealed = seal_bot(spec, tmp_path / "store", tmp_path / "logs")
    assert sealed.folder == tmp_path / "store" / sealed.snapshot
    assert sealed.source == folder.resolve() and sealed.origin == folder.resolve()
    assert sealed.digest() == spec.digest() == sealed.snapshot
    assert seal_bot(sealed, tmp_path / "other", tmp_path / "logs") is sealed  # sealed once
    modes = {p.name: stat.S_IMODE(p.lstat().st_mode) for p in (sealed.folder, *sealed.folder.iterdir())}
    assert modes == {sealed.folder.name: 0o755, "bot.py": 0o444, "bot.toml": 0o444, "run.sh": 0o555}
    (folder / "bot.py").write_text("print('changed')\n")  # the organiser's folder changes ...
    assert (sealed.folder / "bot.py").read_text() == "print('hi')\n"  # ... the snapshot does not


def test_an_unchanged_folder_is_not_built_again(tmp_path: Path) -> None:
    # a build that is not reproducible: each run writes something new
    folder = _bot(tmp_path / "bot", build='["sh", "-c", "date +%s%N > stamp; echo built >> ../count"]')
    first = seal_bot(load_bot(folder), tmp_path / "store", tmp_path / "logs")
    again = seal_bot(load_bot(folder), tmp_path / "store", tmp_path / "logs")
    assert again.snapshot == first.snapshot  # found by source digest and build command
    assert len(list((tmp_path / "store").glob("[0-9a-f]*"))) == 1
    (folder / "bot.py").write_text("print('new')\n")
    changed = seal_bot(load_bot(folder), tmp_path / "store", tmp_path / "logs")
    assert changed.snapshot != first.snapshot


# -- pack and unpack ---------------------------------------------------------------


def _snapshot(tmp_path: Path) -> tuple[Path, str]:
    folder = _bot(tmp_path / "bot")
    (folder / "lib").mkdir()
    (folder / "lib" / "data.bin").write_bytes(os.urandom(3000))
    (folder / "lib" / "tool").write_text("#!/bin/sh\n")
    (folder / "lib" / "tool").chmod(0o755)
    (folder / "alias").symlink_to("lib/tool")
    sealed = seal_bot(load_bot(folder), tmp_path / "store", tmp_path / "logs")
    assert sealed.snapshot is not None
    return sealed.folder, sealed.snapshot


def test_pack_and_unpack_carry_a_snapshot_elsewhere_verified(tmp_path: Path) -> None:
    snapshot, digest = _snapshot(tmp_path)
    data = pack(snapshot)
    assert pack(snapshot) == data  # the same bytes for the same snapshot
    there = unpack(data, tmp_path / "worker", digest)
    assert there == tmp_path / "worker" / digest
    assert folder_digest(there) == digest
    assert os.readlink(there / "alias") == "lib/tool" and os.access(there / "lib" / "tool", os.X_OK)
    assert unpack(data, tmp_path / "worker", digest) == there  # already there


def test_unpack_refuses_bytes_that_are_not_the_snapshot_named(tmp_path: Path) -> None:
    snapshot, digest = _snapshot(tmp_path)
    data = bytearray(pack(snapshot))
    index = data.index(b"print('hi')")
    data[index] ^= 1
    with pytest.raises(HarnessError, match=rf"^snapshot {digest[:12]}: the bytes received are snapshot "):
        unpack(bytes(data), tmp_path / "worker", digest)
    assert not list((tmp_path / "worker").iterdir())  # nothing left behind
    with pytest.raises(HarnessError, match="not a snapshot digest"):
        unpack(pack(snapshot), tmp_path / "worker", "../escape")


def _tar(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


@pytest.mark.parametrize(
    ("members", "needle"),
    [
        ([(_member("../x"), b"x")], "is outside its folder"),
        ([(_member("/etc/x"), b"x")], "is outside its folder"),
        ([(_member("x"), b"1"), (_member("x"), b"2")], "is twice"),
        ([(_member("d/x"), b"x")], "is not inside a folder"),
        ([(_member("l", tarfile.SYMTYPE, "/etc"), b""), (_member("l/x"), b"x")], "is not inside a folder"),
        ([(_member("h", tarfile.LNKTYPE, "x"), b"")], "is a hard link"),
        ([(_member("f", tarfile.FIFOTYPE), b"")], "is a FIFO, device"),
        ([(_member("out", tarfile.SYMTYPE, "../../c/bot"), b"")], "symbolic link out of its folder"),
    ],
)
def test_an_unpacked_archive_holds_only_what_a_snapshot_may(
    tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes]], needle: str
) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(HarnessError, match=needle):
        unpack_stream(io.BytesIO(_tar(*members)), dest, "bot 'b'")
    assert not (tmp_path / "x").exists() and not (tmp_path / "etc").exists()


def test_an_archive_with_a_huge_header_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    info = _member("x" * 10)
    info.pax_headers = {"comment": "y" * (8 << 20)}  # 8 MB of header, no contents
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(HarnessError, match="oversized tar headers"):
        unpack_stream(io.BytesIO(_tar((info, b"x"))), dest, "bot 'b'")


def test_an_archive_of_many_empty_files_stops_at_the_cap(tmp_path: Path) -> None:
    data = _tar(*((_member(f"f{i}"), b"") for i in range(50)))
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(HarnessError, match="holds over 20 files"):
        unpack_stream(io.BytesIO(data), dest, "bot 'b'", Caps(files=20))
