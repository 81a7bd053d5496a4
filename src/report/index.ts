export { renderJson } from './json.js';
export { renderReplayText } from './replay-text.js';
export { renderReplayMarkdown } from './replay-markdown.js';
export { type RenderOptions, formatCount } from './format.js';
