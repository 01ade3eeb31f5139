"""What a search of folders and archives skips, and why: system and hidden files and folders,
documents, images, source code, binaries and other archives (docs/grading.md, "Submissions as
they arrive"). Names only: nothing here opens a file."""

from __future__ import annotations

import os

from dicejack.grade.intake.lms_names import GRADESCOPE_METADATA

__all__ = ["SKIPPED_EXTENSIONS", "SKIPPED_FOLDERS", "SKIPPED_FILES", "METADATA_READ",
           "SITE_MARKER", "REPORT_FIRST_BYTES", "skip_reason", "is_zip", "is_html"]

# -------------------------------------------------------------------- what is skipped
#: File endings that are never a program's printed output, with why (files found in folders
#: and archives only: a file named on the command line is always graded).
SKIPPED_EXTENSIONS: dict[str, str] = {
    **dict.fromkeys((".pdf", ".doc", ".docx", ".odt", ".rtf", ".pages", ".xls", ".xlsx",
                     ".ods", ".ppt", ".pptx", ".key"),
                    "a document, not the program's printed output (save that as .txt)"),
    **dict.fromkeys((".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".tif", ".tiff", ".webp",
                     ".heic"), "an image, not the program's printed output"),
    **dict.fromkeys((".py", ".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".java", ".cs", ".js",
                     ".ts", ".go", ".rs", ".rb", ".m", ".r", ".jl", ".f90", ".swift", ".kt",
                     ".scala", ".hs", ".ml", ".sh", ".ipynb", ".mat", ".makefile"),
                    "source code, not the program's printed output"),
    **dict.fromkeys((".o", ".obj", ".class", ".jar", ".pyc", ".so", ".dll", ".exe", ".dylib",
                     ".a", ".lib", ".bin", ".npz", ".npy", ".pkl", ".pickle"),
                    "a compiled or binary file, not the program's printed output"),
    **dict.fromkeys((".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar"),
                    "an archive dicejack does not open (only .zip)"),
}
METADATA_READ = "the Gradescope export's metadata (read for the student identifiers)"
#: dicejack's own earlier outputs, recognised when found among submissions (never graded): a
#: site folder (--html) holds this file (grade.outputs.site writes it), a report (--reports) is a
#: .md file beginning with these bytes (grade.outputs.student_reports writes them).
SITE_MARKER = ".dicejack-site"
REPORT_FIRST_BYTES = b"# Grade: `"
#: Folders never searched (besides every folder whose name starts with a dot).
SKIPPED_FOLDERS: dict[str, str] = {
    "__MACOSX": "macOS archive metadata",
    "__pycache__": "a Python cache folder",
    "node_modules": "a JavaScript packages folder",
    "venv": "a Python environment",
}
#: System files (besides every file whose name starts with a dot).
SKIPPED_FILES: dict[str, str] = {
    "thumbs.db": "a Windows thumbnail cache",
    "desktop.ini": "a Windows folder setting",
    GRADESCOPE_METADATA: METADATA_READ,  # one that is not read says why instead
}


def skip_reason(name: str, folder: bool = False) -> str:
    """Why a file (or folder) found while searching is not graded; "" when it is."""
    if folder:
        if name.startswith("."):
            return "a hidden folder, not searched"
        reason = SKIPPED_FOLDERS.get(name)
        return f"{reason}, not searched" if reason else ""
    if name.startswith("._"):
        return "macOS metadata (AppleDouble), not a file of the submission"
    if name.startswith("."):
        return "a hidden file"
    if name.startswith("~$"):
        return "an Office lock file"
    reason = SKIPPED_FILES.get(name.lower())
    if reason:
        return reason
    return SKIPPED_EXTENSIONS.get(os.path.splitext(name)[1].lower(), "")


def is_zip(name: str) -> bool:
    return name.lower().endswith(".zip")


def is_html(name: str) -> bool:
    return name.lower().endswith((".html", ".htm"))
