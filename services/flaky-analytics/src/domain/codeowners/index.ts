export * from "./codeowners.js";
export { compileCodeownersPattern } from "./codeowners-pattern.js";
