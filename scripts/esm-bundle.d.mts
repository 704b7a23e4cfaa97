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
};
