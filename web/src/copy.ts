// Copies a field's text. The clipboard API needs a secure context, which a router's http://
// page is not: then the text is selected and copied the old way.
export async function copyField(input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.select();
    return document.execCommand('copy');
  }
}
