"""Qwen-Omni TMRoPE ids of segments built by hand (not read from --tokens), derived by hand
from transformers' get_rope_index: a grid's seconds default to 1 (an image's are 1), and an
audio track of no mel frames places no token."""

from __future__ import annotations

import pytest

from pecli.core.errors import ParameterError
from pecli.core.multiaxis.omni import OmniSegment, omni_ids


def test_a_video_segment_without_seconds_takes_one_second_a_grid():
    """Qwen2.5-Omni, 25 ids a second: the start mark at 0, 2 grids of one merged token at
    1 + 0·25 and 1 + 1·25, the end mark at 26 + 1."""
    ids, _ = omni_ids([OmniSegment("video", (2, 2, 2))], model="qwen2.5-omni", per_second=25)
    assert ids[0].tolist() == [0, 1, 26, 27]


def test_a_video_with_audio_of_no_mel_frames_is_refused():
    """Qwen3-Omni counts 0 mel frames as 0 audio tokens (its convolution lengths, by hand)."""
    with pytest.raises(ParameterError, match="mel=0"):
        omni_ids([OmniSegment("video+audio", (1, 2, 2))], model="qwen3-omni", per_second=13)
