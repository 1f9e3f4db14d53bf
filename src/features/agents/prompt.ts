// Renders an agent's prompt_template: {{input}} becomes the message, or the
// invocation's input_data (strings as-is, anything else as JSON).

export const INPUT_PLACEHOLDER = /\{\{\s*input\s*\}\}/g;

export function hasInputPlaceholder(template: string): boolean {
  return new RegExp(INPUT_PLACEHOLDER.source).test(template);
}

export function inputText(input: unknown): string {
  if (typeof input === "string") return input;
  if (input && typeof input === "object" && "input" in input && typeof input.input === "string") {
    const rest = Object.keys(input).length === 1;
    if (rest) return input.input;
  }
  return JSON.stringify(input, null, 2);
}

export function renderPrompt(template: string, input: unknown): string {
  const text = inputText(input);
  // A replacer function, so `$&` and friends in the input are taken literally.
  return template.replace(INPUT_PLACEHOLDER, () => text);
}
