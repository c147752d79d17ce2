"""A user's policy named in a session file or a playlist entry: its file is found relative to
the session or playlist, it runs when the window opens them, and a saved session names it so
that it opens again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gangviz.gui.session import capture, open_session, save_session
from gangviz.session import read_session, write_session
from gangviz.workloads.playlist import load_playlist
from gangviz.workloads.scenario import ScenarioError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "policies"


def _policy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.py"
    shutil.copy(EXAMPLES / "best_fit_slot.py", path)
    return path


def test_a_session_names_a_policy_file_relative_to_itself(window, tmp_path, monkeypatch, message_boxes):
    _policy(tmp_path / "lab")
    session = tmp_path / "lab" / "s.toml"
    session.write_text('[session]\nversion = 1\n[source]\nname = "downey"\njobs = 60\nprocs = 16\n'
                       'load = 0.9\n[policy]\nname = "mine.py:max_slots=8"\n[view]\nstep = 12\n')
    monkeypatch.chdir(tmp_path)  # elsewhere: the file is found next to the session, not here
    read = read_session(session)
    assert read.policy == str(tmp_path / "lab" / "mine.py") + ":max_slots=8"
    assert open_session(window, str(session)), message_boxes
    sim = window.player.sim
    assert sim.policy_name == "best-fit-slot" and window.player.position == 12
    assert any("placed by the policy" in line for s in window.player.known for line in s.narration)

    # saved again elsewhere below: the policy is written relative to the new session file
    again = tmp_path / "s2.toml"
    assert save_session(window, again) is not None
    assert 'name = "lab/mine.py:max_slots=8"' in again.read_text()
    assert read_session(again).policy == read.policy


def test_write_session_keeps_a_policy_file_outside_the_folder_absolute(tmp_path):
    path = _policy(tmp_path / "elsewhere")
    (tmp_path / "s").mkdir()
    out = tmp_path / "s" / "s.toml"
    from gangviz.session import Session

    write_session(Session("downey", {"jobs": 20}, str(path)), out)
    assert f'name = "{path}"' in out.read_text()
    write_session(Session("downey", {"jobs": 20}, "brms"), out)
    assert 'name = "brms"' in out.read_text()


def test_a_playlist_entry_opens_under_its_policy_file(window, tmp_path, message_boxes):
    _policy(tmp_path / "pl")
    playlist = tmp_path / "pl" / "lecture.toml"
    playlist.write_text('title = "Mine"\n[[scenario]]\nsource = "fig2-repacking"\npolicy = "mine.py"\n'
                        '[[scenario]]\nsource = "fig2-repacking"\npolicy = "firstfit"\n'
                        '[[scenario]]\nsource = "fig2-repacking"\n')
    items = load_playlist(playlist).items
    assert items[0].policy == str(tmp_path / "pl" / "mine.py")
    assert items[1].policy == "firstfit" and items[2].policy is None
    assert window.open_source(str(playlist)), message_boxes
    assert window.player.sim.policy_name == "best-fit-slot"
    assert window.policy_panel.policy() == items[0].policy
    window.player._advance(False)
    assert window.player.known
    assert window.show_playlist_entry(1)
    assert window.player.sim.policy_name.lower() == "firstfit"
    # a session saved on the first entry names its playlist and the policy file
    assert window.show_playlist_entry(0)
    saved = capture(window)
    assert saved.policy == items[0].policy and saved.playlist == str(playlist)


@pytest.mark.parametrize(("policy", "problem"), [
    ('"gone.py"', "policy file 'gone.py' is not next to the playlist"),
    ('"nosuch"', "policy: unknown policy 'nosuch'"),
    ("3", "policy must be a policy's name or a policy file, got 3"),
])
def test_a_playlist_entrys_bad_policy_names_the_file_and_line(tmp_path, policy, problem):
    playlist = tmp_path / "lecture.toml"
    playlist.write_text(f'title = "x"\n[[scenario]]\nsource = "fig2-repacking"\n\n[[scenario]]\n'
                        f'source = "fig2-repacking"\npolicy = {policy}\n')
    with pytest.raises(ScenarioError) as err:
        load_playlist(playlist)
    assert str(err.value).startswith(f"{playlist}:5: entry 2: ")
    assert problem in str(err.value)
