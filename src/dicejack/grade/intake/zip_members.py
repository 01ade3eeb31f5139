"""Zip archives read in memory, never extracted: each member becomes an entry of the batch
(:class:`~dicejack.grade.intake.entries.FoundEntries`), nested archives too, within limits:
MAX_SUBMISSION_BYTES per member (as for files), InputLimits.archive_bytes unpacked in all and
InputLimits.archive_members members per archive, checked on the declared sizes and again on the
bytes actually read (headers can lie). An archive or member that cannot be read is an entry that
says why, never an exception. Members' names are checked by
:mod:`dicejack.grade.intake.archives`."""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from collections.abc import Sequence
from typing import BinaryIO

from dicejack.grade.intake.archives import (
    declared_members,
    error_reason,
    named_members,
    open_zip,
)
from dicejack.grade.intake.entries import (
    EARLIER_REPORT,
    EARLIER_SITE,
    FoundEntries,
    display_name,
    inside_submission,
    too_large,
)
from dicejack.grade.intake.lms_names import receipt_reason
from dicejack.grade.intake.reading import MAX_SUBMISSION_BYTES, NotRegularFile, open_regular
from dicejack.grade.intake.skip_rules import (
    METADATA_READ,
    REPORT_FIRST_BYTES,
    SITE_MARKER,
    is_html,
    is_zip,
    skip_reason,
)

__all__ = ["archive_file"]

_Plan = list[tuple[zipfile.ZipInfo, tuple[str, ...], str, bool]]  # (info, parts, reason, refused)


def _skipped_folder(member: tuple[str, ...], sites: set[tuple[str, ...]]
                    ) -> tuple[int, str] | None:
    """The first folder of `member` that is skipped (its index and reason): a folder skipped
    by name, else one holding an earlier dicejack site; None when no folder is skipped."""
    where = next(((k, r) for k in range(len(member) - 1)
                  if (r := skip_reason(member[k], folder=True))), None)
    if where is None and sites:
        where = next(((k - 1, EARLIER_SITE) for k in range(len(member))
                      if member[:k] in sites), None)
    return where


def archive_file(batch: FoundEntries, raw: str | bytes | os.PathLike[str], label: str,
                 parts: Sequence[str]) -> None:
    """Add the entries of the zip archive at `raw` (opened only if a regular file), within
    the batch's limits."""
    try:
        fd = open_regular(raw)
    except NotRegularFile:
        batch.add(label, parts, error=f"cannot read {label}: not a regular file")
        return
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        batch.add(label, parts, error=f"cannot read {label}: {reason}")
        return
    with os.fdopen(fd, "rb") as fh:
        _archive(batch, fh, label, parts, depth=1, budget=[batch.limits.archive_bytes])


def _archive(batch: FoundEntries, fh: BinaryIO, label: str, parts: Sequence[str], depth: int,
             budget: list[int]) -> bool:
    """Add the entries of one archive; False when the unpacked budget of the archive given
    is spent (nothing more of it is read)."""
    def fail(message: str) -> bool:
        batch.add(label, parts, error=message)
        return True

    declared = declared_members(fh)
    if declared is not None and declared > batch.limits.archive_members:
        return fail(f"refused {label}: {declared:,} members, over the "
                    f"{batch.limits.archive_members:,} limit")
    zf, problem = open_zip(fh, label)
    if zf is None:
        return fail(problem)
    with zf:
        infos = [i for i in zf.infolist() if not i.filename.endswith(("/", "\\"))
                 or not i.filename.strip("/\\")]
        if len(infos) > batch.limits.archive_members:
            return fail(f"refused {label}: {len(infos):,} members, over the "
                        f"{batch.limits.archive_members:,} limit")
        if not infos:
            return fail(f"{label} is an empty archive: no file to grade")
        plan = _archive_plan(batch, infos, label)
        candidates = [i for i, _, r, bad in plan if not bad and r in ("", METADATA_READ)
                      and i.file_size <= MAX_SUBMISSION_BYTES]
        total = sum(i.file_size for i in candidates)
        if total > budget[0]:
            return fail(f"refused {label}: would unpack to {total / 2**20:,.1f} MiB, "
                        f"over the {batch.limits.archive_bytes / 2**20:,.1f} MiB limit "
                        "(a zip bomb?)")
        return _unpack(batch, zf, plan, label, parts, depth, budget)


def _archive_plan(batch: FoundEntries, infos: Sequence[zipfile.ZipInfo], label: str) -> _Plan:
    """What to do with each member, in name order: (info, parts, reason, refused); members
    of skipped folders (and of an earlier site) left out, each folder noted once."""
    named, siblings = named_members(infos)
    sites = {m[:-1] for _, m, problem in named if not problem and m[-1] == SITE_MARKER}
    plan: _Plan = []
    folders_skipped: dict[str, str] = {}
    for info, member, problem in sorted(named, key=lambda t: t[1]):
        if problem:
            plan.append((info, member, problem, True))
            continue
        where = _skipped_folder(member, sites)
        if where is not None:
            key = "/".join(member[:where[0] + 1]) + "/"
            folders_skipped.setdefault(key, where[1])
            continue
        reason = skip_reason(member[-1]) or receipt_reason(
            member[-1], siblings[member[:-1]])
        plan.append((info, member, reason, False))
    for key, reason in folders_skipped.items():
        batch.note(f"{label}!{display_name(key)}", skipped=reason)
    return plan


def _unpack(batch: FoundEntries, zf: zipfile.ZipFile, plan: _Plan, label: str,
            parts: Sequence[str], depth: int, budget: list[int]) -> bool:
    """Add every planned member's entry (a refused one as an error); False when the
    archive's unpacked budget is spent."""
    for info, member, reason, refused in plan:
        if refused:
            label_m = f"{label}!{display_name(info.filename or '(unnamed)')}"
            batch.add(label_m, (*parts, *member), error=f"refused {label_m}: {reason}")
            continue
        if not _member(batch, zf, info, member, reason, label, parts, depth, budget):
            return False
    return True


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, label: str
                 ) -> tuple[bytes | None, str]:
    try:
        with zf.open(info) as fh:
            return fh.read(MAX_SUBMISSION_BYTES + 1), ""
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError,
            NotImplementedError, zlib.error, struct.error) as exc:
        return None, f"cannot read {label}: damaged ({error_reason(exc)})"


def _member(batch: FoundEntries, zf: zipfile.ZipFile, info: zipfile.ZipInfo,
            member: tuple[str, ...], reason: str, archive: str, archive_parts: Sequence[str],
            depth: int, budget: list[int]) -> bool:
    """Add one member's entry (or its nested archive's); False when the archive's unpacked
    budget is spent (the rest of it is not read)."""
    label = f"{archive}!{display_name('/'.join(member))}"
    parts = (*archive_parts, *member)
    if reason == METADATA_READ:
        data, problem = None, ""
        if info.flag_bits & 0x1:
            problem = "encrypted (password)"
        elif info.file_size > MAX_SUBMISSION_BYTES:
            problem = too_large(label, info.file_size, declared=True)
        elif not inside_submission(parts):
            data, problem = _read_member(zf, info, label)
            budget[0] -= len(data) if data is not None else 0
        batch.found_metadata(parts, label, data, problem)
        return budget[0] >= 0
    if reason:
        batch.add(label, parts, skipped=reason)
        return budget[0] >= 0
    if info.flag_bits & 0x1:
        batch.add(label, parts, error=f"cannot read {label}: encrypted (password)")
        return True
    if info.file_size > MAX_SUBMISSION_BYTES:
        batch.add(label, parts, error=too_large(label, info.file_size, declared=True))
        return True
    nested = is_zip(member[-1])
    if nested and depth >= batch.limits.nesting:
        batch.add(label, parts, error=(
            f"refused {label}: an archive nested more than {batch.limits.nesting} deep"))
        return True
    data, problem = _read_member(zf, info, label)
    if data is None:
        batch.add(label, parts, error=problem)
        return True
    budget[0] -= len(data)
    if budget[0] < 0:
        batch.add(archive, archive_parts, error=(
            f"refused the rest of {archive}: it unpacks to more than "
            f"{batch.limits.archive_bytes / 2**20:,.1f} MiB (a zip bomb?)"))
        return False
    if len(data) > MAX_SUBMISSION_BYTES:
        batch.add(label, parts, error=too_large(label, len(data)) + (
            f" (the archive declared {info.file_size:,} bytes)"))
        return True
    if nested:
        return _archive(batch, io.BytesIO(data), label, parts, depth + 1, budget)
    if member[-1].lower().endswith(".md") and data.startswith(REPORT_FIRST_BYTES):
        batch.add(label, parts, skipped=EARLIER_REPORT)
        return True
    batch.add(label, parts, data=data, html=is_html(member[-1]))
    return True
