() => {
  const out = [];
  const pageRect = document.querySelector('[data-testid="stMainBlockContainer"]');
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const L = gd._fullLayout; if (!L) continue;
    const problems = [];
    const title = (L.title && L.title.text) || '';
    // points inside ranges
    for (const t of gd._fullData) {
      if (t.visible !== true || !(t.type === 'scatter' || t.type === 'scattergl')) continue;
      for (const letter of ['x', 'y']) {
        const ax = L[(t[letter + 'axis'] || letter).replace(/^([xy])/, '$1axis')];
        if (!ax || ax.type === 'category' || ax.type === 'multicategory' || ax.type === 'date') continue;
        const vals = t[letter] || [];
        const r = ax.range.map(Number); const lo = Math.min(...r), hi = Math.max(...r);
        for (const v of vals) {
          if (v === null || v === undefined || typeof v === 'string') continue;
          const l = ax.type === 'log' ? Math.log10(v) : v;
          if (!isFinite(l)) continue;
          if (l < lo - 1e-9 || l > hi + 1e-9) { problems.push(`point ${letter}=${v} outside ${ax._name} [${lo},${hi}] (${t.name})`); break; }
        }
      }
    }
    // two boxes apart (touching by a pixel allowed): the legend against the plotting areas and the title,
    // the title against the notes, points' names against colour scales, a y axis's tick labels against
    // each other, the axis titles against each other
    const apart = (a, b) => a.right <= b.left + 1 || b.right <= a.left + 1 || a.bottom <= b.top + 1 || b.bottom <= a.top + 1;
    const overlapping = rects => rects.filter(r => r.width).some((a, i, all) => all.slice(i + 1).some(b => !apart(a, b)));
    const box = gd.getBoundingClientRect();
    const legend = gd.querySelector('.legend');
    const plots = Object.values(L._plots || {}).map(p => ({left: box.left + p.xaxis._offset, right: box.left + p.xaxis._offset + p.xaxis._length,
                                                           top: box.top + p.yaxis._offset, bottom: box.top + p.yaxis._offset + p.yaxis._length}));
    const heading = gd.querySelector('.gtitle');
    if (legend && L.showlegend !== false) {
      const g = legend.getBoundingClientRect();
      if (plots.some(p => !apart(g, p))) problems.push(`legend overlaps a plot`);
      const h = heading && heading.getBoundingClientRect();
      if (h && h.width && !apart(g, h)) problems.push(`legend overlaps the title`);
    }
    // the title against the notes (a panel's title is one: wrapped to three lines, they reached up into it)
    const top = heading && heading.getBoundingClientRect();
    const notes = [...gd.querySelectorAll('.annotation')].map(e => e.getBoundingClientRect()).filter(r => r.width);
    const under = top && top.width ? notes.filter(n => !apart(top, n)) : [];
    if (under.length) problems.push(`the title (bottom ${Math.round(top.bottom - box.top)}) overlaps a note (top ${Math.round(under[0].top - box.top)})`);
    // a point's name against the colour scales beside the plot (the name of the rightmost point ran into one)
    const names = [...gd.querySelectorAll('.textpoint text')].map(e => e.getBoundingClientRect()).filter(r => r.width);
    const scales = [...gd.querySelectorAll('.colorbar')].map(e => e.getBoundingClientRect()).filter(r => r.width);
    if (names.some(n => scales.some(c => !apart(n, c)))) problems.push(`a point's name overlaps a colour scale`);
    for (const k of Object.keys(L).filter(k => /^yaxis\d*$/.test(k))) {
      if (overlapping([...gd.querySelectorAll(`.${L[k]._id}tick text`)].map(e => e.getBoundingClientRect())))
        problems.push(`${k} tick labels overlap`);
    }
    const axisTitles = [...gd.querySelectorAll('.infolayer > g')].filter(g => /^g-[xy]\d*title$/.test(g.getAttribute('class')));
    if (overlapping(axisTitles.map(g => g.getBoundingClientRect()))) problems.push(`axis titles overlap`);
    // every note drawn (plotly hides one whose position lies off its axis: on a log axis, a note's x is log10)
    const drawn = [...gd.querySelectorAll('.annotation-text')].filter(e => e.getBoundingClientRect().width).map(e => e.textContent);
    const seen = gd.checkVisibility({visibilityProperty: true});  // a chart in a closed tab draws no notes
    for (const a of seen ? L.annotations || [] : []) {
      const shown = document.createElement('div'); shown.innerHTML = a.text || '';  // as plotly shows it: markup read
      const text = shown.textContent;
      if (a.visible !== false && text && !drawn.includes(text)) problems.push(`note '${text.slice(0, 40)}' not drawn`);
    }
    // text inside the chart
    const svg = gd.querySelector('.main-svg').getBoundingClientRect();
    for (const tx of gd.querySelectorAll('text')) {
      const r = tx.getBoundingClientRect();
      if (!r.width || !tx.textContent.trim()) continue;
      if (r.left < svg.left - 1 || r.right > svg.right + 1 || r.top < svg.top - 1 || r.bottom > svg.bottom + 1)
        problems.push(`text '${tx.textContent.slice(0, 40)}' outside the chart ${Math.round(r.left-svg.left)},${Math.round(svg.right-r.right)},${Math.round(r.top-svg.top)},${Math.round(svg.bottom-r.bottom)}`);
    }
    // log tick labels
    for (const k of Object.keys(L)) {
      const ax = L[k];
      if (/^[xy]axis\d*$/.test(k) && ax.type === 'log') {
        const labels = [...gd.querySelectorAll(`.${ax._id}tick text`)].map(e => e.textContent);
        if (labels.some(s => !/^(1|10|100)(\.0+)?[kMBT]?$|^0\.0*1$/.test(s))) problems.push(`${k} log labels ${labels.join(' ')}`);
      }
    }
    out.push({title: title.slice(0, 60), top: box.top + window.scrollY, bottom: box.bottom + window.scrollY, problems});
  }
  return out;
}
