"""A Mosquitto configuration for a venue's floor network (``shotclock broker-config``).

By job: :mod:`.passwords` (hashing), :mod:`.plan` (what is written, checked whole), :mod:`.render`
(each file's text; the fixed parts in ``templates/``), :mod:`.files` (writing the folder), :mod:`.certs`
(the floor's CA), :mod:`.build` (the client-id plugin, C in ``plugin/``); the command itself is
:mod:`shotclock.floor.broker_config`.

Writes into one folder:

* ``mosquitto.conf`` -- no anonymous access; a plain listener on loopback only (the floor
  laptop's own collector and tools); TLS on every listener that faces the network; a
  websockets listener for the browser dashboard and overlay; persistence, so retained state
  and queued messages survive a broker restart.
* ``passwd`` -- one credential per table, ``floor`` (may command), ``overlay`` (read-only:
  the broadcast), ``collector`` (read-only: the archive), hashed as ``mosquitto_passwd``
  does (PBKDF2-SHA512, ``$7$``).
* ``acl`` -- a table publishes only its own topics and reads only its own commands.
* ``client-ids`` and ``client-ids.so`` -- the client-id plugin (built here) and its bindings: each table's and
  room bridge's client id is for its own login alone, and that login connects with that id alone, so no other
  login (the overlay, the floor, another table) can take its session.
* ``shotclock-broker.service`` -- a systemd unit that starts this broker as the ``mosquitto`` user
  (``--run-as``); as root, broker-config gives that user's group what the broker reads.
* ``tls/`` (with ``--make-certs NAMES``) -- the floor's CA and the broker's certificate (:mod:`.certs`).
* ``chrony.conf`` (with ``--time NETWORK``) -- this host serves time to the tables on NETWORK, from
  its own clock when the venue has no internet; floor commands and rulings carry wall-clock times.
* ``credentials/<user>.toml`` -- each user's password in clear (mode 0600), for the
  ``[network] credentials`` key of that table's configuration. Running the command again
  keeps every existing password, so adding a table changes no other.

A room broker (``--bridge-to HOST[:PORT] --room NAME --venue-dir DIR``) also gets a bridge to the
venue's broker in its ``mosquitto.conf`` (:func:`.render.bridge_text`), and the venue broker's folder gets
the matching side: ``rooms/<room>.toml`` (the room's tables), the bridge's credential, its line in
``passwd`` and its block in ``acl`` (:func:`.files.write_rooms`), allowed exactly what the bridge carries.
"""
