"""``shotclock broker-config``: write a venue's Mosquitto configuration (the command; the work is in
:mod:`shotclock.floor.broker`, whose names are importable from here too)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from shotclock.errors import ShotclockError
from shotclock.floor.broker.build import PLUGIN_FILE, PluginBuildError, build_plugin
from shotclock.floor.broker.certs import make_certs
from shotclock.floor.broker.files import (ROOMS_MARK, add_room, broker_user, give_to_broker, read_rooms,
                                          write_broker_config, write_credentials, write_rooms)
from shotclock.floor.broker.passwords import PBKDF2_ITERATIONS, check_password, hash_password
from shotclock.floor.broker.plan import (COLLECTOR, FLOOR, OVERLAY, Bridge, BrokerPlan, Endpoint, bridge_state_topic,
                                         bridge_topics, bridge_user, floor_user, parse_endpoint, parse_tables,
                                         table_client_id, table_user)
from shotclock.floor.broker.render import (BINDINGS_FILE, UNIT_FILE, acl_text, bindings_text, bridge_text, chrony_text,
                                           conf_text, room_acl_text, unit_text)
from shotclock.web import web_dir

__all__ = ["BINDINGS_FILE", "COLLECTOR", "FLOOR", "OVERLAY", "PBKDF2_ITERATIONS", "PLUGIN_FILE", "ROOMS_MARK",
           "UNIT_FILE", "Bridge", "BrokerPlan", "Endpoint", "acl_text", "add_room", "bindings_text",
           "bridge_state_topic", "bridge_text", "bridge_topics", "bridge_user", "build_plugin", "check_password",
           "chrony_text", "cmd_broker_config", "conf_text", "floor_user", "hash_password", "parse_bridge",
           "parse_endpoint", "parse_tables", "read_rooms", "room_acl_text", "table_client_id", "table_user",
           "unit_text", "write_broker_config", "write_credentials", "write_rooms"]


def _client_id_plugin(args) -> str | None:
    """The client-id plugin to load: ``--client-id-plugin PATH`` (one built before), ``none``, or DIR's own,
    built now (``build_plugin``). One that cannot be built is still named in mosquitto.conf, so the broker
    does not start without it (never silently unbound), and the warning says what to install."""
    choice = args.client_id_plugin
    if choice == "none":
        return None
    if choice is not None:  # checked with the other files given
        return str(Path(choice).resolve())
    out = Path(args.out) / PLUGIN_FILE
    try:
        build_plugin(out)
    except PluginBuildError as exc:
        if not out.is_file():
            print(f"warning: {exc}; mosquitto will not start without {out}: install them and run broker-config "
                  "again here, on the broker's machine (--client-id-plugin none: no client-id binding)",
                  file=sys.stderr)
        else:
            print(f"warning: {exc}; {out} is kept as it was built before", file=sys.stderr)
    return str(out.resolve())


def cmd_broker_config(args) -> int:
    """``shotclock broker-config``: write a venue's Mosquitto configuration."""
    if args.make_certs and (args.certfile or args.keyfile):
        raise ShotclockError("--make-certs makes tls/server.pem and server.key: give it or --certfile/--keyfile")
    plan = BrokerPlan(
        venue=args.venue, tables=parse_tables(args.tables),
        floor=[n.strip() for n in args.floor.split(",") if n.strip()],
        local=parse_endpoint(args.local, "--local"),
        network=parse_endpoint(args.listen, "--listen") if args.listen else None,
        websockets=parse_endpoint(args.websockets, "--websockets") if args.websockets != "none" else None,
        certfile=args.certfile, keyfile=args.keyfile, run_as=args.run_as,
        pages=None if args.no_pages else str(web_dir()))
    if args.make_certs:
        plan.certfile = plan.keyfile = "tls/server.pem"  # stand-ins for the check; made once it passes
    if args.bridge_to:
        plan.bridge = parse_bridge(args)
    else:
        alone = [flag for flag, value in (("--room", args.room), ("--venue-dir", args.venue_dir),
                                          ("--ca-file", args.ca_file)) if value]
        if alone:  # a bridge option without the bridge would be silently ignored
            raise ShotclockError(f"{' and '.join(alone)}: only with --bridge-to HOST (a room broker's bridge)")
    plugin = args.client_id_plugin if args.client_id_plugin != "none" else None
    for path in (args.certfile, args.keyfile, plan.bridge and plan.bridge.cafile, plugin):
        if path and not Path(path).is_file():
            raise ShotclockError(f"no such file: {path}")
    problems = plan.problems()
    if problems:
        raise ShotclockError("; ".join(problems))
    chrony = chrony_text(args.time) if getattr(args, "time", None) else None
    out = Path(args.out)
    if args.make_certs:
        cert, key, ca = make_certs(out, [n.strip() for n in args.make_certs.split(",") if n.strip()], plan.venue)
        plan.certfile, plan.keyfile = str(cert), str(key)
    if plan.bridge is not None:  # the venue broker's side first: it holds the bridge's password
        password = add_room(args.venue_dir, plan.venue, plan.bridge.room, plan.tables)
        plan.bridge = replace(plan.bridge, password=password)
    plan.client_id_plugin = _client_id_plugin(args)
    write_broker_config(plan, out)
    if chrony:
        (out / "chrony.conf").write_text(chrony, encoding="utf-8")
        print(f"wrote {out / 'chrony.conf'}: serves time to {args.time} (cp it to /etc/chrony/conf.d/shotclock.conf)")
    print(f"wrote {out / 'mosquitto.conf'}, passwd, acl, {BINDINGS_FILE}, {UNIT_FILE} and credentials/ for "
          f"{len(plan.tables)} tables of venue {plan.venue!r}" + (f", and built {PLUGIN_FILE}" if plan.client_id_plugin
                                                                   and args.client_id_plugin is None else ""))
    if args.make_certs:
        print(f"TLS: {out / 'tls/server.pem'} for {args.make_certs}; the tables trust {ca} ('shotclock provision' "
              f"takes it from this folder), give it to the floor's tablets too; keep {out / 'tls/ca.key'} here only")
    if plan.floor:
        print(f"floor credentials: {', '.join(floor_user(n) for n in plan.floor)} (credentials/<user>.toml)")
    if plan.bridge is not None:
        print(f"bridged to {plan.bridge.venue_broker.host}:{plan.bridge.venue_broker.port} as "
              f"{bridge_user(plan.bridge.room)}; the venue broker's passwd and acl in {args.venue_dir} now allow it "
              f"(reload the venue's broker)")
    user, _ = broker_user(plan)
    folder = out.resolve()
    _warn_if_closed(folder, plan, user)
    if not give_to_broker(folder, user) and user != "root" and os.geteuid() != 0:
        print(f"as root, give the broker its files: chgrp {user} {folder}/{{passwd,acl,{BINDINGS_FILE},{PLUGIN_FILE}}} "
              f"&& chown -R {user}: {folder}/data" + (f" && chgrp {user} {folder}/tls/server.key" if args.make_certs
                                                        else ""))
    print(f"start it with systemd: sudo cp {folder / UNIT_FILE} /etc/systemd/system/ && sudo systemctl disable "
          f"--now mosquitto && sudo systemctl enable --now {UNIT_FILE}")
    print(f"or by hand, as {user}: {'' if user == 'root' else f'sudo -u {user} '}mosquitto -c "
          f"{folder / 'mosquitto.conf'}")
    print(f"a running broker reads passwd, acl and {BINDINGS_FILE} again on SIGHUP (systemctl reload "
          "shotclock-broker): a table added or removed, a password changed")
    return 0


def _warn_if_closed(folder: Path, plan: BrokerPlan, user: str) -> None:
    """One warning line when the broker's user cannot get into the folder just written, or to the pages it serves:
    mosquitto would say only "Unable to open config file" (a folder under root's home, mode 0700). A warning, not a
    refusal: the folder is written whole, and may be meant for another machine; moving it is the cure."""
    from shotclock.shell.files import closed_folder

    closed = closed_folder(folder / "mosquitto.conf", user)
    if closed is not None:
        print(f"warning: {closed}: the broker cannot read {folder / 'mosquitto.conf'} (mosquitto says 'Unable to "
              f"open config file'); write the folder where {user} can reach it, such as /etc/shotclock-broker",
              file=sys.stderr)
    elif plan.pages and (closed := closed_folder(Path(plan.pages) / "dashboard" / "index.html", user)) is not None:
        print(f"warning: {closed}: the broker cannot serve the pages in {plan.pages} (the dashboard answers 404); "
              f"install shotclock where {user} can read it, or give --no-pages", file=sys.stderr)


def parse_bridge(args) -> Bridge:
    """The bridge of ``--bridge-to HOST[:PORT] --room NAME --venue-dir DIR [--ca-file PEM]`` (port 8883 by
    default); ShotclockError naming a missing option. The password is filled in from the venue's folder."""
    missing = [flag for flag, value in (("--room", args.room), ("--venue-dir", args.venue_dir)) if not value]
    if missing:
        raise ShotclockError(f"--bridge-to needs {' and '.join(missing)}")
    text = args.bridge_to
    if text.endswith("]") or ":" not in text:  # no port ([::1] for IPv6)
        text += ":8883"
    return Bridge(parse_endpoint(text, "--bridge-to"), args.room, "", args.ca_file)
