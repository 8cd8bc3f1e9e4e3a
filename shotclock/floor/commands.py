"""The floor's subcommands of the command line: the broker's configuration, the collector, the fleet, the demo.

Declared as :mod:`shotclock.shell.commands` declares the shell's: each names the function that runs
it as ``"module:function"``, imported only when that command runs.
"""

from __future__ import annotations

import argparse

from shotclock.shell.args import decimal, whole


def broker_config(add) -> None:
    p = add("broker-config", "shotclock.floor.broker_config:cmd_broker_config",
            "write a Mosquitto configuration for a venue: passwords, ACLs, listeners (see docs/network.md)",
            config=False)
    p.add_argument("out", metavar="DIR", help="the folder to write mosquitto.conf, passwd, acl and credentials/ into")
    p.add_argument("--venue", required=True, help="the venue's name in the topics (letters, digits, - and _)")
    p.add_argument("--tables", required=True, metavar="IDS", help="table ids, for example 1-20,feature")
    p.add_argument("--floor", default="", metavar="NAMES",
                   help="a credential for each floor person, for example anna,ben (user floor-anna, ...): the broker "
                        "proves who sent a command; run again with another list to add or remove people")
    p.add_argument("--local", default="127.0.0.1:1883", metavar="HOST:PORT",
                   help="the plain listener, on loopback only (default 127.0.0.1:1883)")
    p.add_argument("--listen", metavar="HOST:PORT", help="a TLS listener for the floor network, e.g. 0.0.0.0:8883")
    p.add_argument("--websockets", default="127.0.0.1:9001", metavar="HOST:PORT",
                   help="the browsers' websockets listener (default 127.0.0.1:9001; TLS beyond loopback; none: off)")
    p.add_argument("--make-certs", metavar="NAMES", help="make the floor's CA and the broker's certificate in "
                   "DIR/tls/ for these names and addresses, e.g. floor.local,192.168.10.2 (kept when there)")
    p.add_argument("--certfile", metavar="PEM", help="server certificate for TLS listeners (instead of --make-certs)")
    p.add_argument("--keyfile", metavar="PEM", help="its private key")
    p.add_argument("--run-as", metavar="USER", help="the user the broker runs as (the unit's User=; default mosquitto)")
    p.add_argument("--client-id-plugin", metavar="PATH", help="the broker's client-id plugin, which keeps each "
                   "table's client id for its own login (default: built into DIR/client-ids.so now, with gcc and "
                   "Debian's mosquitto-dev, libmosquitto-dev and libssl-dev; PATH: one built before; none: no binding)")
    p.add_argument("--no-pages", action="store_true",
                   help="do not serve the dashboard and overlay pages from the websockets listener")
    p.add_argument("--time", metavar="NETWORK", help="also write chrony.conf so this host serves time to the tables "
                   "on NETWORK (a CIDR such as 192.168.10.0/24), even with no internet")
    b = p.add_argument_group("a room broker bridged to the venue's broker (docs/network.md, 'A bigger venue')")
    b.add_argument("--bridge-to", metavar="HOST[:PORT]",
                   help="this is a room broker: bridge its tables to the venue broker at HOST (port 8883 by default)")
    b.add_argument("--room", metavar="NAME", help="the room's name (the bridge's user on the venue broker: bridge-NAME)")
    b.add_argument("--venue-dir", metavar="DIR",
                   help="the venue broker's broker-config folder: its passwd and acl get the bridge's user, "
                        "allowed this room's tables only")
    b.add_argument("--ca-file", metavar="PEM", help="the venue broker's CA or self-signed certificate (TLS; "
                   "needed unless HOST is loopback)")


def provision(add) -> None:
    p = add("provision", "shotclock.floor.provision:cmd_provision",
            "write each table's first-boot file for its SD card's boot partition (identity, broker, credential, CA)",
            config=False)
    p.add_argument("out", metavar="DIR", help="the folder to write <table>/shotclock-firstboot.toml into")
    p.add_argument("--broker-dir", required=True, metavar="DIR",
                   help="the folder 'shotclock broker-config' wrote (its credentials/ hold each table's password)")
    p.add_argument("--venue", required=True, help="the venue's name in the topics (as given to broker-config)")
    p.add_argument("--tables", required=True, metavar="IDS", help="table ids, for example 1-40")
    p.add_argument("--broker", required=True, metavar="HOST:PORT", help="the broker as the tables reach it, "
                   "for example floor.local:8883")
    p.add_argument("--ca-file", metavar="PEM", help="the broker's CA certificate (or its self-signed certificate)")
    p.add_argument("--names", default="Table {id}", metavar="PATTERN",
                   help="each table's name on screen; {id} is its id (default 'Table {id}')")
    p.add_argument("--time-server", metavar="HOST", help="the NTP server for the tables (default: the broker's host)")
    p.add_argument("--keep-hostname", action="store_true",
                   help="leave each Pi's host name (default: shotclock-<id>, so cards cloned from one master differ)")
    p.add_argument("--template", metavar="TOML", help="a configuration file whose keys every table gets "
                   "(preset, language, pins ...); identity, broker and time keys come from the other options")


def add_broker_options(p, credentials_help: str, credentials_metavar: str = "FILE", required: bool = True) -> None:
    """Where the broker is and who we are, for the commands that connect to it (``required`` False: the command
    checks ``--venue`` and ``--credentials`` itself, when it connects)."""
    p.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST:PORT",
                   help="the broker (default 127.0.0.1:1883, the plain loopback listener)")
    p.add_argument("--venue", required=required, help="the venue's name in the topics")
    p.add_argument("--credentials", required=required, metavar=credentials_metavar, help=credentials_help)
    p.add_argument("--tls", action="store_true", help="connect with TLS (a broker beyond this machine)")
    p.add_argument("--ca-file", metavar="PEM", help="the broker's certificate or CA (default: the system's CAs)")


def floor(add) -> None:
    p = add("floor", "shotclock.floor.collector:cmd_collect", "the floor's tools: collect every table's rulings",
            config=False)
    sub = p.add_subparsers(dest="floor_command", required=True, metavar="{collect,idle,status}")
    c = sub.add_parser("collect", help="keep every table's records in one archive (SQLite or PostgreSQL), "
                                       "deduplicated",
                       description="subscribe to every table's events and keep them in DIR/collected.db (SQLite) or "
                                   "in a PostgreSQL database; read it with 'shotclock log --collected DIR --table ID'")
    add_broker_options(c, "the collector's credentials (credentials/collector.toml from 'shotclock broker-config')")
    c.add_argument("--archive", required=True, metavar="DIR|URL",
                   help="where the archive lives: a folder (collected.db, SQLite) or a PostgreSQL database "
                        "(postgresql://USER@HOST/DB; its password in ~/.pgpass, not on the command line)")
    c.add_argument("--share", metavar="GROUP",
                   help="split the events among the collectors of this MQTT 5 shared-subscription group "
                        "($share/GROUP/…), on one machine or several, all writing the same --archive "
                        "postgresql://… database; needs --member")
    c.add_argument("--member", metavar="NAME",
                   help="this collector's name in its --share group (its own persistent session): 1, 2, …")
    c.add_argument("--member-expiry", type=whole, default=30, metavar="SECONDS",
                   help="with --share: how long a member may be away before the broker gives its share of the "
                        "events to the group's others (default 30)")
    i = sub.add_parser("idle", help="wait until a table is online with no clock open (a fleet update's step)",
                       description="exit 0 once the table's status is online and its state has no clock open "
                                   "(and, with --version, it runs that version); exit 1 after --wait seconds")
    i.set_defaults(func="shotclock.floor.update:cmd_idle")
    report(sub)
    add_broker_options(i, "the floor's credentials (credentials/floor.toml from 'shotclock broker-config')")
    i.add_argument("--table", required=True, metavar="ID", help="the table's id")
    i.add_argument("--version", metavar="V", help="also wait until the table runs this version")
    i.add_argument("--wait", type=decimal, default=600, metavar="SECONDS", help="how long to wait (default 600)")
    s = sub.add_parser("status", help="the floor network itself: collectors, share group members, bridged rooms",
                       description="print the collector's status, each share group member (online or gone), each "
                                   "bridged room (connected or not, with the tables it hides) and the tables' counts, "
                                   "from the broker's retained messages; exit 0 when all is up, 1 when a part is down")
    s.set_defaults(func="shotclock.floor.status:cmd_status")
    add_broker_options(s, "the floor's credentials (credentials/floor.toml from 'shotclock broker-config')")
    s.add_argument("--wait", type=decimal, default=10, metavar="SECONDS",
                   help="how long to wait for the broker (default 10)")


def report(sub) -> None:
    """``shotclock floor report`` (docs/report.md)."""
    from shotclock.core.slowplay import COLUMNS, DEFAULT_SORT

    sub.metavar = sub.metavar[:-1] + ",report}"  # the usage line names every floor command
    r = sub.add_parser("report", help="the slow-play report: each player's decision times, clocks, rulings",
                       description="per player across every table and day of the archive: decisions, median, 95th "
                                   "percentile and longest decision time, clocks called on them, extensions, bank "
                                   "used, rulings against them (docs/report.md). Exit 2: no archive, a bad --day or "
                                   "--level, an unknown --table.")
    r.set_defaults(func="shotclock.floor.report:cmd_report")
    r.add_argument("--archive", required=True, metavar="DIR|URL",
                   help="the collector's archive (its folder, collected.db, or its postgresql:// database)")
    r.add_argument("--venue", metavar="NAME", help="one venue's records (a tour's database holds several venues'; "
                                                   "default: every venue's)")
    r.add_argument("--day", metavar="YYYY-MM-DD", help="one floor day (06:00 to 06:00 local time)")
    r.add_argument("--table", metavar="ID", help="one table")
    r.add_argument("--level", type=whole, metavar="N", help=f"one tournament level: the clocks started at it "
                                                          f"({bounds('level')})")
    r.add_argument("--sort", choices=COLUMNS, default=DEFAULT_SORT, metavar="COLUMN",
                   help=f"sort by this column, largest first (default {DEFAULT_SORT}; one of {', '.join(COLUMNS)})")
    out = r.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="FILE", help="write CSV to FILE (- for standard output)")
    out.add_argument("--json", action="store_true", help="print JSON")


def fleet(add) -> None:
    p = add("fleet", "shotclock.floor.fleet:cmd_fleet",
            "run N simulated tables against a broker (tests, benchmarks, a dashboard demo)", config=False)
    p.add_argument("--tables", type=whole, required=True, metavar="N", help="how many tables (1 to 2000)")
    p.add_argument("--first", type=whole, default=1, metavar="ID", help="the first table id (default 1)")
    add_broker_options(p, "the folder of table credentials (credentials/ from 'shotclock broker-config')", "DIR")
    p.add_argument("--duration", type=decimal, metavar="SECONDS", help="stop after this long (default: until Ctrl-C)")
    p.add_argument("--pace", type=decimal, default=1.0, help="scale the pauses between hands (0.2: five times busier)")
    p.add_argument("--seed", type=whole, help="seed the dealer's random choices")
    p.add_argument("--idle", action="store_true",
                   help="no dealer: the tables only do what the floor commands (browser tests, screenshots)")
    p.add_argument("--deal", action="store_true",
                   help="the clock-mode dealer begins each hand with the new hand (a street hold): "
                        "hand-for-hand then makes each table wait for the floor's release")
    p.add_argument("--arrivals", metavar="FILE",
                   help="append a JSON line for each floor command each table read (table, command id, "
                        "CLOCK_MONOTONIC seconds) when the fleet stops: when the command reached the tables")
    p.add_argument("--shot", type=whole, default=0, metavar="N",
                   help="the last N tables run the shot clock (preset shot-15-20-30); the rest the clock call")
    p.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS,  # keeps a --state-dir given before 'fleet'
                   help="keep the tables' decision logs here (default: a temporary folder in memory, /dev/shm)")


def floor_demo(add) -> None:
    p = add("floor-demo", "shotclock.floor.demo:cmd_floor_demo",
            "a whole floor network on this machine: broker with the web pages, collector, simulated tables",
            config=False)
    p.add_argument("--tables", type=whole, default=8, help="how many simulated tables (default 8)")
    p.add_argument("--venue", default="demo", help="the venue's name in the topics (default demo)")
    p.add_argument("--dir", default=".floor", help="where configuration, archive and logs go (default .floor)")
    p.add_argument("--seconds", type=decimal, help="stop after this long (default: run until Ctrl-C)")
    p.add_argument("--quiet", action="store_true",
                   help="the simulated tables press nothing: only what you command from the dashboard happens")
    p.add_argument("--shot", type=whole, metavar="N",
                   help="the last N tables run the shot clock (default: a quarter of them, at least one of two)")
    p.add_argument("--no-feature", action="store_true",
                   help="no feature table (by default one more table, a real device with seat tracking and a time "
                        "bank, Tempo, and six named players)")


def bounds(key: str) -> str:
    """A field's bounds in words, from the table of fields (core/fields.py)."""
    from shotclock.core.fields import FIELDS

    return f"{FIELDS[key].low} to {FIELDS[key].high}"


def choices(key: str) -> tuple[str, ...]:
    """A choice field's words, from the table of fields (core/fields.py)."""
    from shotclock.core.fields import FIELDS

    return FIELDS[key].choices


def send(add) -> None:
    p = add("send", "shotclock.floor.send:cmd_send",
            "send one floor command to a table over the network and print its acknowledgement (exit 0: done; "
            "1: ignored or refused, with the reason, or with --all a table there that did not take it; 2: a usage "
            "error, a table or room the venue does not know, or no answer)", config=False)
    add_broker_options(p, "the floor's credentials (credentials/floor.toml from 'shotclock broker-config')")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", metavar="ID", help="the table's id")
    where.add_argument("--all", action="store_true",
                       help="every table of the venue (with --room, --section: the tables there); prints each "
                            "table's answer, waiting for every table online there, then names every table there "
                            "that did not take it and why")
    p.add_argument("--room", metavar="NAME", help=f"only the tables of this room (network.room; {bounds('room')} "
                   "characters)")
    p.add_argument("--section", metavar="NAME", help="only the tables of this section (network.section)")
    p.add_argument("command", metavar="COMMAND",
                   help="call, pause, resume, cancel, …; the seat commands: seat, rename, empty, button, top_up, "
                        "seating, fold, all_in, turn_back, turn_forward, mark, unmark; the tournament's: level, "
                        "hands, hand_for_hand, release_hand, end_hand_for_hand, rule_set (docs/network.md)")
    p.add_argument("--level", type=whole, metavar="N",
                   help=f"level: the tournament level from each table's next hand ({bounds('level')})")
    p.add_argument("--hands", type=whole, metavar="N",
                   help=f"level, hands: hands per level from the next hand ({bounds('hands')}; 0: not counted)")
    p.add_argument("--minutes", type=decimal, metavar="M", help=f"hand_for_hand: the minutes each hand-for-hand hand "
                   f"takes off the tournament clock ({bounds('minutes')}; default 2, TDA RP-8)")
    p.add_argument("--rule-set", metavar="NAME", help="rule_set: the named rule set from each table's next hand "
                   "([rule_sets.NAME] in the tables' configuration); \"\": back to the tables' own rules")
    p.add_argument("--seat", type=whole, metavar="N", help=f"the seat ({bounds('seat')})")
    p.add_argument("--player", metavar="NAME", help="seat, rename: the player's name")
    p.add_argument("--bank", type=decimal, metavar="SECONDS",
                   help=f"seat: the time bank a moved player brings ({bounds('bank')})")
    p.add_argument("--chips", type=whole, metavar="N",
                   help=f"seat: the chips a moved player brings; top_up: more each ({bounds('chips')})")
    p.add_argument("--seconds", type=decimal, metavar="S", help=f"top_up: more time bank each ({bounds('seconds')})")
    p.add_argument("--mark", choices=choices("mark"),
                   help="mark: a warning, or the player's own clock on every decision; seat: the mark a moved player "
                        "brings")
    p.add_argument("--mark-seconds", type=decimal, metavar="S",
                   help=f"mark, seat: the own clock's length with --mark clock ({bounds('mark_seconds')} s)")
    p.add_argument("--seating", metavar="FILE.csv", help="seating: the table's seating export (seat,name a line)")
    p.add_argument("--encoding", default="utf-8", metavar="NAME",
                   help="with --seating: the file's encoding (default utf-8; an older program's export: cp1252)")
    p.add_argument("--facing-bet", choices=("true", "false"), help="call, bet: the bet state")
    p.add_argument("--seats", type=whole, default=10, metavar="N",
                   help="with --seating: the table's seats, to check the file against (default 10)")
    p.add_argument("--wait", type=decimal, default=5.0, metavar="SECONDS", help="how long to wait for the answer")
    p.add_argument("--json", action="store_true", help="print the table's ack as JSON (docs/network.md, 'ack')")
    p.add_argument("--broker-dir", metavar="DIR", help="the broker's folder from 'shotclock broker-config': a --table "
                   "not among its tables is said at once (without it: a table the broker holds no status of)")


TOURNAMENT_ACTIONS = {
    "start": "start the clock (from the first level, or the one a 'level' jumped to)",
    "pause": "pause the clock (a break that overruns, a color-up)",
    "resume": "resume a paused clock",
    "add": "add SECONDS to the level or break in force (2m: two minutes)",
    "take": "take SECONDS off the level or break in force (2m: two minutes)",
    "level": "jump to level N with its whole time",
    "next": "end the level or break in force now (a final table's level that ends by hands)",
    "keep": "keep the time as it is after the clock was away (a crash, a power cut); 'add' gives it back",
    "load": "load a structure FILE into a clock that has not started (.tdt, TD's rounds export, CSV, TOML)",
    "players": "the players left N, for the room's screen (0: not shown)",
    "status": "print the clock's state from the broker (exit 1: its process is offline)",
}


def tournament(add) -> None:
    p = add("tournament", "shotclock.floor.tournamentcmd:cmd_tournament",
            "a tournament's clock: 'run' holds it (one process per tournament), the other actions command it over "
            "the broker and print its answer in one line (exit 0 done; 1 not done, with the reason, or offline; "
            "2 a usage error or no answer); docs/tournament.md", config=False)
    sub = p.add_subparsers(dest="action", required=True, metavar="{run," + ",".join(TOURNAMENT_ACTIONS) + "}")
    r = sub.add_parser("run", help="hold one tournament's clock, publish its state and take the floor's commands",
                       description="hold one tournament's clock on this machine until stopped: its state retained "
                                   "on the broker, every event in the --journal first (it comes back where it was "
                                   "after a crash or a power cut)")
    r.set_defaults(func="shotclock.floor.tournament:cmd_tournament_run")
    add_broker_options(r, "a floor login's credentials (credentials/floor.toml from 'shotclock broker-config')")
    r.add_argument("--id", required=True, help="the tournament's id in the topics (1 to 32 letters, digits, - or _)")
    r.add_argument("--journal", required=True, metavar="FILE", help="the clock's journal (SQLite; made when missing)")
    r.add_argument("--structure", metavar="FILE",
                   help="the structure to play (.tdt, TD's rounds export, CSV or TOML; 'shotclock structure FILE' "
                        "checks it); needed the first time, not after a restart")
    r.add_argument("--encoding", metavar="NAME", help="the structure file's encoding (default: UTF-8, else cp1252)")
    r.add_argument("--room", action="append", metavar="NAME", help="the tables of this room follow it (repeatable)")
    r.add_argument("--section", action="append", metavar="NAME",
                   help="the tables of this section follow it (repeatable)")
    r.add_argument("--tables", metavar="LIST", help="these tables follow it (1-40,final)")
    r.add_argument("--venue-wide", action="store_true",
                   help="every table of the venue follows it (one of --room, --section, --tables or this is needed "
                        "the first time; the journal keeps it)")
    for name, text in TOURNAMENT_ACTIONS.items():
        a = sub.add_parser(name, help=text, description=text)
        add_broker_options(a, "a floor login's credentials (credentials/floor.toml from 'shotclock broker-config')")
        a.add_argument("--id", required=True, help="the tournament's id")
        if name in ("add", "take", "level", "load", "players"):
            a.add_argument("value", metavar={"level": "N", "load": "FILE", "players": "N"}.get(name, "SECONDS"))
            if name == "load":
                a.add_argument("--encoding", metavar="NAME", help="the file's encoding (default: UTF-8, else cp1252)")
        else:
            a.set_defaults(value=None)
        a.add_argument("--wait", type=decimal, default=5.0, metavar="SECONDS",
                       help="how long to wait for the clock's answer (default 5)")


REGISTER: list = [broker_config, provision, floor, fleet, floor_demo, send, tournament]
