"""The decision log's records stay byte for byte what they were: the log corpus (tests/log_corpus.py).

The fixture was written by the version before the records were declared as Structs (core/log_records.py); each
session is played again, its records handed over in-process and through the writer's pipe format, and every column
of every stored record (its data's text, ``prev`` and ``hash``) must be the fixture's.
"""

import json
import logging

import msgspec
import pytest

import log_corpus
from shotclock.core.log_records import DATA

STORED = log_corpus.stored()


@pytest.mark.parametrize("through_pipe", [False, True], ids=["in-process", "pipe"])
@pytest.mark.parametrize("seed", sorted(STORED))
def test_the_stored_records_and_their_hashes_are_the_corpus(seed, through_pipe, caplog):
    caplog.set_level(logging.ERROR)
    lines = log_corpus.session_lines(seed, through_pipe)
    for n, (want, got) in enumerate(zip(STORED[seed], lines), 1):
        assert got == want, f"seed {seed}, record {n}"
    assert len(lines) == len(STORED[seed])


def test_the_corpus_holds_every_declared_kind_of_record():
    kinds = {json.loads(line)["type"] for lines in STORED.values() for line in lines}
    assert set(DATA) <= kinds, f"no record of {sorted(set(DATA) - kinds)} in the corpus"


def test_every_stored_record_is_its_declared_data_exactly():
    # What the log holds reads back into the declared Struct, and the Struct writes back the same fields and
    # values: the declaration names every field the records carry and leaves out none a record writes.
    checked = 0
    for lines in STORED.values():
        for line in lines:
            row = json.loads(line)
            declared = DATA.get(row["type"])
            if declared is None:
                continue
            data = json.loads(row["data"])
            assert msgspec.to_builtins(msgspec.convert(data, declared)) == data, row["type"]
            checked += 1
    assert checked > 300
