// esbuild bundles the imported stylesheet into the page's one CSS file.
declare module "*.css";
