// The static shell (web/src/app/static_shell.rs): until the page's wasm arrives, show
// the lab the link names as it will look, drawn from the data block
// `#lblab-shell` that the build pastes into index.html: the site header, the
// lab's title and introduction, its main controls with their values (the
// link's own where it gives one), and a placeholder where each result panel
// goes. An embed gets the page's compact layout and posts its height, so the
// host sizes the frame before the lab runs. The app removes `#shell` as it
// mounts. No network, no eval: plain DOM from data this build wrote.
// Start compiling the simulation worker's module now, while the page's own
// module is still downloading: the page picks the promise up
// (`lblabWorkerModule`, web/src/platform/worker.rs) instead of starting the compile
// itself once it runs. The bytes come from the build's preload of the same
// URL, so nothing is fetched twice.
(function () {
  var link = document.querySelector('link[data-worker=wasm]');
  if (!link || !window.WebAssembly || !WebAssembly.compileStreaming) return;
  var compiled = WebAssembly.compileStreaming(fetch(link.href));
  // A failure is the page's to report when it asks for the module.
  compiled.catch(function () {});
  window.lblabWorkerModule = compiled;
})();

(function () {
  'use strict';
  var block = document.getElementById('lblab-shell');
  if (!block) return;
  var data;
  try {
    data = JSON.parse(block.textContent);
  } catch (e) {
    return;
  }
  // The link's keys, first value of each, each cut to a readable length.
  var query = {};
  location.search.replace(/^\?/, '').split('&').forEach(function (pair) {
    if (!pair) return;
    var at = pair.indexOf('=');
    var key = at < 0 ? pair : pair.slice(0, at);
    var value = at < 0 ? '' : pair.slice(at + 1);
    try {
      key = decodeURIComponent(key.replace(/\+/g, ' '));
      value = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch (e) {
      return;
    }
    if (!(key in query)) query[key] = value.length > 40 ? value.slice(0, 40) + '…' : value;
  });
  var root = document.documentElement;
  var embed = query.embed === '1' || query.embed === 'true';
  if (query.theme === 'light' || query.theme === 'dark') root.setAttribute('data-theme', query.theme);
  var lab = null;
  data.labs.forEach(function (l) {
    if (l.id === query.lab && !query.tour) lab = l;
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  var shell = el('div');
  shell.id = 'shell';
  shell.setAttribute('aria-busy', 'true');
  if (!embed) {
    var header = el('header', 'site-header');
    var inner = el('div', 'site-header-inner');
    var brand = el('a', 'brand', 'LLM Load-Balancing Lab');
    brand.href = '?';
    var nav = el('nav');
    nav.setAttribute('aria-label', 'Labs');
    var links = [['?', 'Home']].concat(data.labs.map(function (l) {
      return ['?lab=' + l.id, l.title];
    }));
    links.push(['?lab=validate', 'Validation']);
    links.forEach(function (link) {
      var a = el('a', null, link[1]);
      a.href = link[0];
      if (lab && link[0] === '?lab=' + lab.id) a.setAttribute('aria-current', 'page');
      nav.appendChild(a);
    });
    inner.appendChild(brand);
    inner.appendChild(nav);
    header.appendChild(inner);
    shell.appendChild(header);
  }
  var main = el('main');
  shell.appendChild(main);

  if (lab) {
    if (embed) root.classList.add('embed');
    // The panels an embed shows, as the app will choose them.
    var view = query.view ? query.view.split(',') : embed ? lab.embed.slice() : null;
    if (view && embed && query.controls && view.indexOf('controls') < 0) view.push('controls');
    if (view) root.setAttribute('data-view', view.join(' '));
    var article = el('article', 'lab shell-lab');
    var head = el('header', 'lab-header');
    // The introduction is this build's own HTML (web/src/app/static_shell.rs).
    head.innerHTML = lab.intro;
    article.appendChild(head);
    var grid = el('div', 'lab-grid');
    var results = el('section', 'results');
    lab.panels.forEach(function (panel) {
      var box = el('div', 'shell-placeholder shell-' + panel, panel === 'player' ? 'Loading the simulation…' : '');
      box.setAttribute('data-panel', panel);
      results.appendChild(box);
    });
    var controls = el('section', 'controls');
    controls.setAttribute('data-panel', 'controls');
    controls.appendChild(el('h2', null, lab.inputs));
    var list = el('dl', 'shell-controls');
    lab.controls.forEach(function (c) {
      var key = c[0];
      list.appendChild(el('dt', null, c[1]));
      list.appendChild(el('dd', null, key in query ? query[key] : c[2]));
    });
    controls.appendChild(list);
    grid.appendChild(results);
    grid.appendChild(controls);
    article.appendChild(grid);
    main.appendChild(article);
  } else {
    main.appendChild(el('h1', null, query.tour ? 'Loading the tour…' : 'LLM Load-Balancing Lab'));
    main.appendChild(el('p', 'shell-placeholder shell-home', 'Loading the simulation…'));
  }
  document.body.appendChild(shell);
  if (embed && lab && window.parent !== window) {
    window.parent.postMessage({ source: 'lblab', type: 'resize', lab: lab.id, height: document.body.scrollHeight }, '*');
  }
})();
