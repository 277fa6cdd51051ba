// MathJax configuration, loaded before MathJax itself (mkdocs.yml: extra_javascript).
// pymdownx.arithmatex (generic mode) turns $$ … $$ into \[ … \] and $ … $ into \( … \), inside
// elements of class "arithmatex"; MathJax typesets those elements only.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  svg: { fontCache: "global" },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};
