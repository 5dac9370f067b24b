"""The package as a user's first import meets it, in fresh interpreters.

pytest imports Hypothesis before any test file, so an import-order bug in
the strategies module cannot show inside this process; these tests start
new interpreters instead.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _run(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_strategies_as_the_first_import_of_a_fresh_interpreter() -> None:
    done = _run(
        """
        import sys
        assert "hypothesis" not in sys.modules
        from convtypes import strategies as cst
        from hypothesis import strategies as st
        import convtypes as ct
        value = st.from_type(ct.ToolCall).example()
        assert isinstance(value, ct.ToolCall)
        assert isinstance(cst.messages().example(), ct.Message.__args__)
        print("ok")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_strategies_as_the_first_import_of_a_test_file(tmp_path: Path) -> None:
    test_file = tmp_path / "test_user.py"
    test_file.write_text(
        textwrap.dedent(
            """
            from convtypes import strategies as cst
            from hypothesis import HealthCheck, given, settings

            import convtypes as ct


            # What is tested is the order of the imports; the health check
            # on slow generation only measures how busy the machine is.
            @settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
            @given(cst.transcripts())
            def test_round_trip(messages):
                assert ct.decode_messages(ct.encode(messages)) == messages
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:hypothesispytest", "-p",
         "no:cacheprovider", str(test_file)],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_from_type_works_with_no_convtypes_import_of_strategies() -> None:
    done = _run(
        """
        import sys
        from hypothesis import strategies as st
        import convtypes as ct
        assert isinstance(st.from_type(ct.AssistantMessage).example(), ct.AssistantMessage)
        assert isinstance(st.from_type(ct.Provenance).example(), ct.Provenance)
        print("ok")
        """
    )
    assert done.returncode == 0, done.stderr


def test_import_convtypes_loads_no_optional_layer() -> None:
    done = _run(
        """
        import sys
        import convtypes
        optional = [m for m in sys.modules
                    if m == "hypothesis" or m.startswith(("hypothesis.", "convtypes.strategies",
                                                          "convtypes.dialects", "convtypes.sync"))]
        print(optional)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_from_type_builds_the_lenient_types() -> None:
    done = _run(
        """
        from hypothesis import given, settings, strategies as st
        import convtypes as ct

        @settings(max_examples=50)
        @given(st.from_type(ct.LenientMessage), st.from_type(ct.LenientContentBlock))
        def check(message, block):
            assert ct.decode_lenient_message(ct.encode(message)) == message
            holder = ct.UserMultimodalMessage(content=(block,))
            assert ct.decode_lenient_message(ct.encode(holder)) == holder

        check()
        print("ok")
        """
    )
    assert done.returncode == 0, done.stderr
