/** The esbuild options every ES module bundle of this repository shares (see esm-bundle.mjs). */
export declare const ESM_BUNDLE_OPTIONS: {
  readonly bundle: true;
  readonly platform: "node";
  readonly target: "node22";
  readonly format: "esm";
  readonly splitting: true;
  readonly chunkNames: string;
  readonly banner: { readonly js: string };
  readonly legalComments: "none";
  readonly mainFields: string[];
};

/** The CommonJS modules the bundle loads with import() through a default-only chunk, relative to `root`. */
export declare function dynamicCommonJs(metafile: unknown, workingDir: string, root: string): string[];

/** Throws naming each of them (see dynamicCommonJs), ending with `remedy`. */
export declare function refuseDynamicCommonJs(
  metafile: unknown,
  workingDir: string,
  root: string,
  remedy: string,
): void;
