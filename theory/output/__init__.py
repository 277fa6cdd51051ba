"""Output: Markdown/LaTeX rendering, the text and JSON report, SVG figures and the derivation documents."""
