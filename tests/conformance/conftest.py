import sys
from pathlib import Path

# The suite's helper modules sit next to the tests (pytest runs in importlib mode).
sys.path.insert(0, str(Path(__file__).parent))
