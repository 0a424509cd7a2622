#!/usr/bin/env python3
"""Writes the sample character cards of cards/tests/data, shaped as the apps write them:

- v1.json          TavernAI / early SillyTavern V1: flat JSON plus the app's own fields.
- v2.png           SillyTavern before V3: chara_card_v2 in a tEXt `chara` chunk, V1 fields
                   mirrored at the top level, ST's lorebook entry extensions.
- v3.png           SillyTavern today: V2 in `chara` and V3 in `ccv3` (the V3 one carries
                   fields V2 cannot, so a reader that takes `chara` shows it).
- card.charx       RisuAI: zip with card.json (V3) and the assets it names as embeded://.
- agnai_v2.json    Agnaistic's "TavernAI" download: V2 with V1 fields backfilled at the top,
                   its W++ persona rendered into the description, its own data under
                   extensions.agnai, lorebook entries without use_regex/case_sensitive.

The characters are written for these tests (public domain, CC0); the pictures are small
gradients made here. Only the standard library is used, independently of the Rust code
under test. Run from anywhere: python3 cards/tests/data/make_samples.py
"""

import base64
import json
import os
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def gradient_png(width: int, height: int, tint: tuple, extra_chunks=()) -> bytes:
    """An 8-bit RGB PNG; extra_chunks go before IEND as the apps put them."""
    rows = b""
    for y in range(height):
        rows += b"\x00" + b"".join(
            bytes(((x * 255 // (width - 1) + tint[0]) % 256, (y * 255 // (height - 1) + tint[1]) % 256, tint[2]))
            for x in range(width)
        )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    # A tIME and a tEXt Software chunk, as image editors leave them: export must keep them.
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    out += chunk(b"tEXt", b"Software\x00amora sample generator")
    out += chunk(b"IDAT", zlib.compress(rows, 9))
    for c in extra_chunks:
        out += c
    return out + chunk(b"IEND", b"")


def text_chunk(keyword: str, obj) -> bytes:
    payload = base64.b64encode(json.dumps(obj, ensure_ascii=False).encode("utf-8"))
    return chunk(b"tEXt", keyword.encode("latin-1") + b"\x00" + payload)


MARISOL = {
    "name": "Marisol",
    "description": "{{char}} keeps the lighthouse on Gull Rock. She is 34, sharp-tongued, and reads "
    "old sea charts by lamplight.",
    "personality": "dry humour, patient, curious about strangers",
    "scenario": "{{user}} is stranded on Gull Rock after a storm and knocks on the lighthouse door.",
    "first_mes": "*The door creaks open.* You look half drowned. Come in before the wind takes you, {{user}}.",
    "mes_example": "<START>\n{{user}}: Do you ever get lonely?\n{{char}}: The gulls talk more than you'd think.",
}

LOREBOOK_V2 = {
    "name": "Gull Rock",
    "description": "",
    "scan_depth": 4,
    "token_budget": 512,
    "recursive_scanning": False,
    "extensions": {},
    "entries": [
        {
            "id": 0,
            "keys": ["lighthouse", "lamp"],
            "secondary_keys": [],
            "comment": "The lighthouse",
            "content": "The Gull Rock light is a first-order Fresnel lens, lit since 1871.",
            "constant": False,
            "selective": True,
            "insertion_order": 100,
            "enabled": True,
            "position": "before_char",
            "use_regex": False,
            "extensions": {
                "position": 0,
                "exclude_recursion": False,
                "display_index": 0,
                "probability": 100,
                "useProbability": True,
                "depth": 4,
                "selectiveLogic": 0,
                "group": "",
                "scan_depth": None,
                "case_sensitive": None,
                "match_whole_words": None,
                "automation_id": "",
                "role": 0,
                "vectorized": False,
            },
        },
        {
            "id": 1,
            "keys": ["storm"],
            "secondary_keys": ["boat", "ship"],
            "comment": "The wreck",
            "content": "A trawler, the Kittiwake, broke up on the reef last winter.",
            "constant": False,
            "selective": True,
            "insertion_order": 50,
            "enabled": True,
            "position": "after_char",
            "use_regex": False,
            "extensions": {"position": 1, "selectiveLogic": 0, "depth": 4, "probability": 100},
        },
        {
            "id": 2,
            "keys": [],
            "secondary_keys": [],
            "comment": "Always",
            "content": "{{char}} never leaves the rock in winter.",
            "constant": True,
            "selective": False,
            "insertion_order": 10,
            "enabled": True,
            "position": "before_char",
            "use_regex": False,
            "extensions": {"position": 0, "selectiveLogic": 0, "depth": 4, "probability": 100},
        },
    ],
}

ST_DATA_EXTENSIONS = {
    "talkativeness": "0.5",
    "fav": False,
    "world": "Gull Rock",
    "depth_prompt": {"prompt": "", "depth": 4, "role": "system"},
    "x_unknown_app": {"kept": [1, 2, {"deep": True}]},
}


def v2_card(extra_data=None):
    data = dict(MARISOL)
    data.update(
        {
            "creator_notes": "Slow-burn, cosy. Works best with long replies.",
            "system_prompt": "",
            "post_history_instructions": "",
            "tags": ["female", "slice of life", "OC"],
            "creator": "amora-tests",
            "character_version": "1.2",
            "alternate_greetings": [
                "*She is on the gallery, polishing the lens.* Storm's coming. You'd best stay.",
                "Another one washed up. Tea's on the stove, {{user}}.",
            ],
            "extensions": ST_DATA_EXTENSIONS,
            "character_book": LOREBOOK_V2,
        }
    )
    if extra_data:
        data.update(extra_data)
    card = dict(MARISOL)  # ST mirrors the V1 fields at the top for old readers
    card.update(
        {
            "personality": MARISOL["personality"],
            "avatar": "none",
            "chat": "Marisol - 2024-05-01@12h00m00s",
            "talkativeness": "0.5",
            "fav": False,
            "tags": ["female", "slice of life", "OC"],
            "create_date": "2024-05-01T12:00:00.000Z",
            "creatorcomment": "Slow-burn, cosy. Works best with long replies.",
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": data,
        }
    )
    return card


def v3_card():
    card = v2_card(
        {
            "nickname": "Mari",
            "group_only_greetings": ["*Marisol counts heads.* More of you? The kettle's small."],
            "creation_date": 1714564800,
            "modification_date": 1717243200,
            "source": ["https://example.org/cards/marisol"],
            "creator_notes_multilingual": {"en": "Slow-burn, cosy.", "fr": "Lent et douillet."},
            "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        }
    )
    card["spec"] = "chara_card_v3"
    card["spec_version"] = "3.0"
    return card


def main():
    v1 = dict(MARISOL)
    v1.update({"avatar": "none", "chat": "Marisol - 2023-01-01@10h00m00s", "create_date": "2023-1-1 @10h 00m 00s 000ms",
               "talkativeness": "0.5", "fav": False, "creatorcomment": ""})
    with open(os.path.join(HERE, "v1.json"), "w", encoding="utf-8") as f:
        json.dump(v1, f, indent=2, ensure_ascii=False)

    with open(os.path.join(HERE, "v2.png"), "wb") as f:
        f.write(gradient_png(16, 16, (0, 40, 120), [text_chunk("chara", v2_card())]))

    v2_for_v3 = v2_card()
    with open(os.path.join(HERE, "v3.png"), "wb") as f:
        f.write(gradient_png(24, 16, (90, 0, 30), [text_chunk("chara", v2_for_v3), text_chunk("ccv3", v3_card())]))

    risu = v3_card()
    for k in ["avatar", "chat", "talkativeness", "fav", "tags", "create_date", "creatorcomment"] + list(MARISOL):
        risu.pop(k, None)
    risu["data"]["assets"] = [
        {"type": "icon", "uri": "embeded://assets/icon/image/main.png", "name": "main", "ext": "png"},
        {"type": "emotion", "uri": "embeded://assets/emotion/image/happy.png", "name": "happy", "ext": "png"},
        {"type": "x_risu_other", "uri": "embeded://assets/other/image/map.png", "name": "map", "ext": "png"},
    ]
    risu["data"]["extensions"] = {"risuai": {"utilityBot": False, "sourceUrl": "", "backgroundHTML": ""},
                                  "depth_prompt": {"prompt": "", "depth": 0}}
    icon = gradient_png(32, 32, (10, 200, 60))
    entries = [
        ("card.json", json.dumps(risu, ensure_ascii=False).encode("utf-8")),
        ("assets/icon/image/main.png", icon),
        ("assets/emotion/image/happy.png", gradient_png(8, 8, (250, 250, 0))),
        ("assets/other/image/map.png", gradient_png(8, 8, (0, 0, 250))),
        ("x_meta/1.json", json.dumps({"type": "png"}).encode("utf-8")),
    ]
    with zipfile.ZipFile(os.path.join(HERE, "card.charx"), "w") as z:
        for name, content in entries:
            # A fixed date keeps the file the same on every run.
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 1, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, content)
    with open(os.path.join(HERE, "charx_icon.png"), "wb") as f:
        f.write(icon)

    persona = {"kind": "wpp", "attributes": {"mind": ["wry", "steady"], "job": ["lighthouse keeper"]}}
    description = '[character("Tomas") {\nmind("wry" + "steady")\njob("lighthouse keeper")\n}]'
    greeting = "*Tomas lifts the storm lantern.* Who goes there, {{user}}?"
    sample_chat = "{{user}}: Nice lamp.\n{{char}}: It's a lens, <USER>. <BOT> corrects everyone."
    scenario = "A night watch at the Gull Rock light."
    agnai = {
        "name": "Tomas", "first_mes": greeting, "scenario": scenario, "description": description,
        "personality": "", "mes_example": sample_chat,
        "spec": "chara_card_v2", "spec_version": "2.0",
        "data": {
            "name": "Tomas", "first_mes": greeting, "scenario": scenario, "description": description,
            "personality": "", "mes_example": sample_chat,
            "creator_notes": "Relieves Marisol on Sundays.", "system_prompt": "", "post_history_instructions": "",
            "alternate_greetings": [],
            "character_book": {
                "name": "Tomas' notes", "description": "",
                "entries": [{"keys": ["lens"], "content": "The lens weighs six tonnes.", "extensions": {},
                             "enabled": True, "insertion_order": 100, "name": "Lens", "priority": 100}],
                "extensions": {},
            },
            "tags": ["male"], "creator": "", "character_version": "",
            "extensions": {"agnai": {"voice": {"service": "webspeechsynthesis", "voiceId": "default"}, "persona": persona}},
        },
    }
    with open(os.path.join(HERE, "agnai_v2.json"), "w", encoding="utf-8") as f:
        json.dump(agnai, f, indent=2, ensure_ascii=False)


if __name__ == "__main__":
    main()
