// Text a visitor cannot read whole, as "why: text": a word wider than its box (a label broken inside a
// word), a text cut with an ellipsis or run off its box, or an option chosen in a multiselect out of its
// box (a row of chips that does not wrap hides the last ones behind a fade).
() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const shown = e => e.offsetParent !== null;
  const widestWord = e => {
    const style = getComputedStyle(e);
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return Math.max(0, ...e.textContent.split(/\s+/).map(word => canvas.measureText(word).width));
  };
  const cut = [];
  const labels = '[data-testid="stWidgetLabel"] p, [data-testid="stCheckbox"] p, [data-testid="stMetricLabel"] p, h1, h2, h3';
  document.querySelectorAll(labels).forEach(e => {
    if (shown(e) && widestWord(e) > e.getBoundingClientRect().width + 1) cut.push(`a word wider than its box: ${e.textContent}`);
  });
  const boxes = '.stMarkdownEllipsis, [data-testid="stPageLink"] p, [data-testid="stButton"] p, [data-testid="stDownloadButton"] p, h1, h2, h3, [data-tag] > span';
  document.querySelectorAll(boxes).forEach(e => {
    if (shown(e) && e.scrollWidth > e.clientWidth + 1) cut.push(`cut short: ${e.textContent}`);
  });
  document.querySelectorAll('[data-testid="stMultiSelectTagsContainer"]').forEach(box => {
    if (!shown(box)) return;
    const edge = box.getBoundingClientRect();
    box.querySelectorAll('[data-tag]').forEach(tag => {
      const r = tag.getBoundingClientRect();
      if (r.left < edge.left - 1 || r.right > edge.right + 1) cut.push(`out of its box: ${tag.textContent}`);
    });
  });
  return cut;
}
