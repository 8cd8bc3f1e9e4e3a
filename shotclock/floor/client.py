"""The broker connection a floor command-line tool opens: checked names, its login, TLS, one clear error.

``shotclock send`` and ``shotclock floor idle`` each talk to one table through the broker as one floor
person, and ``shotclock tournament`` with a tournament's clock; they all start the same way, here.
"""

from __future__ import annotations

import math

from shotclock.errors import ShotclockError

WAIT_MAX = 24 * 3600  # seconds: the longest --wait of a floor tool (an idle table, a slow broker)


def floor_client(args, client_id: str | None = None):
    """A paho client logged in with ``args.credentials`` (not yet connected), and its username.

    :param args: the tool's arguments: ``venue``, ``table`` (if the tool has one), ``broker``, ``credentials``, ``tls``, ``ca_file``.
    :param client_id: the MQTT client id (None: the broker picks one).
    :raises ShotclockError: a bad venue or table id, broker address, or credentials file (one line).
    """
    import paho.mqtt.client as mqtt

    from shotclock.adapters.mqtt_login import read_credentials
    from shotclock.core.topics import check_name
    from shotclock.floor.broker_config import parse_endpoint

    for kind, value in (("venue", args.venue), ("table", getattr(args, "table", None))):
        if value is not None and (problem := check_name(kind, value)):
            raise ShotclockError(problem)
    wait = getattr(args, "wait", None)
    if wait is not None and not (math.isfinite(wait) and 0 < wait <= WAIT_MAX):
        raise ShotclockError(f"--wait must be more than 0 and at most {WAIT_MAX} seconds, not {wait:g}")
    parse_endpoint(args.broker, "--broker")
    username, password = read_credentials(args.credentials)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or "", protocol=mqtt.MQTTv5)
    client.username_pw_set(username, password)
    if args.tls:
        import ssl

        client.tls_set_context(ssl.create_default_context(cafile=args.ca_file or None))
    return client, username


def connect(client, args, keepalive: int) -> None:
    """Connect ``client`` to ``args.broker`` and start its network thread (ShotclockError if unreachable)."""
    from shotclock.floor.broker_config import parse_endpoint

    endpoint = parse_endpoint(args.broker, "--broker")
    try:
        client.connect(endpoint.host, endpoint.port, keepalive=keepalive)
    except OSError as exc:
        raise ShotclockError(f"cannot reach the broker at {args.broker}: {exc.strerror or exc}") from None
    client.loop_start()
