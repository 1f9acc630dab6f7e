/** Where the OpenAPI document the types come from lives. */
export const DOCUMENT: string;
/** Where the generated types live. */
export const OUTPUT: string;
/** The TypeScript of the committed document. */
export function render(): Promise<string>;
