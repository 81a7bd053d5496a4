import { esc } from './escape.js';

/** The opening of every memsim page, up to and including `<body>`: charset, the page's
 * Content-Security-Policy (`csp`), title, styles. */
export function pageHead(o: { title: string; version: string; css: string; csp: string }): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${o.csp}">`,
    '<meta name="color-scheme" content="light dark">',
    `<meta name="generator" content="memsim ${esc(o.version)}">`,
    `<title>${esc(o.title)}</title>`,
    '<link rel="icon" href="data:,">',
    `<style>\n${o.css}</style>`,
    '</head>',
    '<body>',
  ];
}
