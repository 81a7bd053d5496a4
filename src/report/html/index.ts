export { renderHtmlReport } from './page.js';
export { loadHtmlAssets, type HtmlAssets } from './assets.js';
