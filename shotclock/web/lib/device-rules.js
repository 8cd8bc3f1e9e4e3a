/* Generated from shotclock/core/tones.py, core/view.py, core/fields.py, core/engine.py and core/topics.py by 'python -m shotclock.web': do not edit. */
(this.Shotclock = this.Shotclock || {}).DEVICE_RULES = {
 "commands": {
  "clock": {
   "idle": [
    "call"
   ],
   "paused": [
    "resume",
    "cancel"
   ],
   "running": [
    "pause",
    "cancel"
   ]
  },
  "shot": {
   "idle": [
    "start"
   ],
   "paused": [
    "resume",
    "extend",
    "stop"
   ],
   "running": [
    "pause",
    "extend",
    "stop"
   ]
  }
 },
 "consequence": {
  "bet": "hand_dead",
  "no_bet": "check"
 },
 "countdown_includes_start": true,
 "fields": {
  "bank": {
   "kind": "seconds",
   "max": 36000,
   "min": 0
  },
  "chips": {
   "kind": "whole",
   "max": 50,
   "min": 0
  },
  "delay": {
   "kind": "seconds",
   "max": 3600,
   "min": 0
  },
  "hands": {
   "kind": "whole",
   "max": 100,
   "min": 0
  },
  "level": {
   "kind": "whole",
   "max": 100,
   "min": 1
  },
  "mark": {
   "choices": [
    "warning",
    "clock"
   ],
   "kind": "choice"
  },
  "mark_seconds": {
   "kind": "seconds",
   "max": 300,
   "min": 5
  },
  "player": {
   "kind": "text",
   "max": 40,
   "min": 1
  },
  "rule_set": {
   "kind": "text",
   "max": 32,
   "min": 0
  },
  "seat": {
   "kind": "seat",
   "max": 10,
   "min": 1
  },
  "seconds": {
   "kind": "seconds",
   "max": 36000,
   "min": 0
  }
 },
 "hand_for_hand": {
  "any_place": "*",
  "commands": [
   "hand_for_hand",
   "release_hand",
   "end_hand_for_hand"
  ],
  "max_hands": 1000,
  "max_minutes": 3,
  "max_seq": 9007199254740991,
  "minutes": 2,
  "no_place": "_",
  "place_max": 32,
  "place_safe": "-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
 },
 "ruling_ms": 10000,
 "ruling_tones": {
  "acted": "good",
  "cancelled": "neutral",
  "check": "check",
  "hand_dead": "dead"
 },
 "tones": {
  "bank": {
   "accent": "#b07cff",
   "background": "#3e1670",
   "ink": "#ffffff",
   "ring": "#d2aaff"
  },
  "calm": {
   "accent": "#2ecc71",
   "background": "#08341e",
   "ink": "#ebfff0",
   "ring": "#2ecc71"
  },
  "check": {
   "accent": "#a0aabc",
   "background": "#3a4252",
   "ink": "#ffffff",
   "ring": "#dce2ec"
  },
  "dead": {
   "accent": "#f85149",
   "background": "#960000",
   "ink": "#ffffff",
   "ring": "#ffffff"
  },
  "flash": {
   "accent": "#ffffff",
   "background": "#ffffff",
   "ink": "#000000",
   "ring": "#000000"
  },
  "good": {
   "accent": "#2ecc71",
   "background": "#0a5a28",
   "ink": "#ffffff",
   "ring": "#ffffff"
  },
  "neutral": {
   "accent": "#5a5a64",
   "background": "#101014",
   "ink": "#f0f0f0",
   "ring": "#5a5a64"
  },
  "paused": {
   "accent": "#7896dc",
   "background": "#182240",
   "ink": "#e6ecff",
   "ring": "#7896dc"
  },
  "urgent": {
   "accent": "#f85149",
   "background": "#960000",
   "ink": "#ffffff",
   "ring": "#ffd600"
  },
  "warn": {
   "accent": "#e89600",
   "background": "#e89600",
   "ink": "#000000",
   "ring": "#281800"
  }
 },
 "tournament": {
  "commands": [
   "start",
   "pause",
   "resume",
   "add",
   "take",
   "level",
   "next",
   "keep",
   "load",
   "players"
  ],
  "heartbeat_s": 5.0,
  "max_level": 100,
  "max_seconds": 36000,
  "quiet_beats": 3,
  "quiet_slack_s": 1.0
 },
 "warn_below": 0.5
};
