/** Escapes text for HTML element content and quoted attribute values. */
export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Text inlined in a `<script>` element; `</script` inside it would end the element early. */
export function scriptText(code: string): string {
  return code.replace(/<\/script/gi, '<\\/script');
}
