"""The exit codes of ``modelcompare``, in one place.

Every subcommand exits with one of these codes; :data:`EXIT_CODES_HELP` is the text that ends
``modelcompare --help`` (and, through it, the command-line page of the documentation).
"""

from __future__ import annotations

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_CODES",
    "EXIT_CODES_HELP",
    "EXIT_DATA",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REJECT",
    "EXIT_USAGE",
]

EXIT_OK = 0
EXIT_REJECT = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INTERRUPTED = 128 + 2  # killed by SIGINT (Ctrl-C), as the shell reports it
EXIT_BROKEN_PIPE = 128 + 13  # killed by SIGPIPE, as the shell reports it for `yes | head -1`

#: Each exit code and what it means, in the order the help lists them.
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "the command ran (and, with --fail-on-reject, nothing was rejected)",
    EXIT_REJECT: "--fail-on-reject was given and H0 was rejected at --alpha",
    EXIT_USAGE: "usage error: a bad option or command, or a request over a resource limit",
    EXIT_DATA: "unreadable or invalid input (a file, its contents, a config)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "the reader of stdout went away (a pipe into head -1), silently",
}

# `\b` keeps click (and sphinx-click) from rewrapping the lines of the list.
EXIT_CODES_HELP = (
    "\b\nExit codes:\n"
    + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES.items())
    + (
        "\n\n\bErrors are one line 'Error: ...' on stderr; set MODELCOMPARE_DEBUG=1 for a traceback."
    )
)
