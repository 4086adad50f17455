"""Qwen-Omni TMRoPE ids of segments built by hand (not read from --tokens), derived by hand
from transformers' get_rope_index: a grid's seconds default to 1 (an image's are 1), and an
audio track of no mel frames places no token."""

from __future__ import annotations

import pytest

from pecli.core.errors import ParameterError
from pecli.core.multiaxis.omni import OMNI_PRESETS, OmniSegment, omni_ids, parse_omni


@pytest.mark.parametrize(
    "segments",
    [[OmniSegment("video", (2, 2, 2))], parse_omni("video:2,2,2")],
    ids=["built", "read"],
)
def test_a_video_without_seconds_takes_one_second_a_grid(segments):
    """Qwen2.5-Omni, 25 ids a second: the start mark at 0, 2 grids of one merged token at
    1 + 0·25 and 1 + 1·25, the end mark at 26 + 1."""
    ids, _ = omni_ids(segments, model="qwen2.5-omni", per_second=25)
    assert ids[0].tolist() == [0, 1, 26, 27]


def test_a_video_with_audio_of_one_mel_frame_is_one_qwen3_omni_audio_token():
    """Qwen3-Omni's convolution lengths give 1 mel frame one token (by hand): marks 0, 1; the
    frame and the audio token both at 2 (video first); end marks 3, 4."""
    ids, _ = omni_ids(parse_omni("video+audio:1,2,2,s=1,mel=1"), model="qwen3-omni", per_second=13)
    assert ids[0].tolist() == [0, 1, 2, 2, 3, 4]


def test_a_video_with_audio_of_no_mel_frames_is_refused():
    """Qwen3-Omni counts 0 mel frames as 0 audio tokens (its convolution lengths, by hand)."""
    with pytest.raises(ParameterError, match="mel=0"):
        omni_ids([OmniSegment("video+audio", (1, 2, 2))], model="qwen3-omni", per_second=13)


def test_a_qwen2_5_omni_video_longer_than_its_audio_ends_with_a_video_chunk():
    """get_chunked_index, 50 ids a chunk: two start marks at 0; from 1, frames at 1, 26, 51, 76
    (one merged token each, 25 a second) and 25 audio ids 1 … 25 (100 mel frames). Chunks:
    video 1, 26 | audio 1 … 25 | video 51, 76 (no audio left); two end marks at 77."""
    segment = parse_omni("video+audio:4,2,2,s=1.0,mel=100")
    ids, _ = omni_ids(segment, model="qwen2.5-omni", per_second=25)
    assert ids[0].tolist() == [0, 0, 1, 26, *range(1, 26), 51, 76, 77, 77]
    assert ids[1].tolist() == [0, 0, 1, 1, *range(1, 26), 1, 1, 77, 77]


def test_a_spatial_merge_size_of_1_places_every_patch():
    """merge 1: a 1×1×1 image is one token at 1 + (0, 0, 0) between marks at 0 and 2."""
    ids, _ = OMNI_PRESETS["qwen2.5-omni"].token_ids("image:1,1,1", spatial_merge_size=1)
    assert ids.array.tolist() == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]


def test_the_largest_spatial_merge_size_is_2_to_the_20():
    """The documented range, 1 to 2^20: 2^20 itself is taken (text ids 0, 1 need no merge)."""
    ids, _ = OMNI_PRESETS["qwen3-omni"].token_ids("text:2", spatial_merge_size=1 << 20)
    assert ids.array.tolist() == [[0, 0, 0], [1, 1, 1]]


def test_a_video_with_audio_of_mel_0_is_refused_when_read():
    """The grammar's video+audio:T,H,W,s=SECONDS,mel=MEL takes a track of mel frames >= 1."""
    with pytest.raises(ParameterError, match="must be words"):
        parse_omni("video+audio:1,2,2,s=1,mel=0")


def test_qwen3_omni_interleaves_video_and_audio_by_time():
    """13 ids a second, start marks 0, 1; from 2: frames at t 2 and 15 (a merged row of 2
    tokens each, h = 2) and 13 audio ids 2 … 14 (100 mel frames); by t, video first on the
    tie at 2; end marks 16, 17."""
    ids, _ = omni_ids(
        parse_omni("video+audio:2,2,4,s=1,mel=100"), model="qwen3-omni", per_second=13
    )
    assert ids[0].tolist() == [0, 1, 2, 2, *range(2, 15), 15, 15, 16, 17]
