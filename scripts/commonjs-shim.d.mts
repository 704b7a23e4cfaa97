/** The banner every ES module bundle of this repository starts with (see commonjs-shim.mjs). */
export declare const COMMONJS_SHIM: string;
