"""The panel the summary and nothing-due screens show their note in."""

PANEL_CSS = """
#panel {
    width: 64;
    height: auto;
    padding: 1 2;
    border: round $primary;
    background: $surface;
}
.panel-title { margin-bottom: 1; color: $text-primary; }
"""
