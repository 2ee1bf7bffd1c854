"""schedlab_client: write a schedlab scheduler in Python (standard library only).

A scheduler subclasses Scheduler and implements schedule(view) -> Plan; serve() runs it over
stdin/stdout (policy.params.command) or a Unix socket (policy.params.socket). The View is kept
current from the deltas of each call (see PROTOCOL.md beside this directory).
"""

from .protocol import (
    PROTOCOL_VERSION,
    Job,
    Machine,
    Plan,
    ProtocolError,
    Scheduler,
    Stage,
    View,
    fits,
    serve,
    serve_socket,
)

__all__ = [
    "PROTOCOL_VERSION",
    "Job",
    "Machine",
    "Plan",
    "ProtocolError",
    "Scheduler",
    "Stage",
    "View",
    "fits",
    "serve",
    "serve_socket",
]
