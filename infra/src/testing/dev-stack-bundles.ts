import { deployDevStack } from "./deploy-dev-stack";
import { createFixtureBundles, type FixtureBundles } from "./fixture-bundles";

/**
 * The stand-in bundles a test file deploys the dev stack with: made in the
 * file's beforeAll, removed in its afterAll. vitest gives each test file its
 * own instance of this module, so each file has its own bundles.
 */
export let bundles: FixtureBundles;

export const devStackBundles = {
  make(): void {
    bundles = createFixtureBundles();
  },
  remove(): void {
    bundles.remove();
  },
};

/** The dev stack under mocks, deployed from this file's bundles with `overrides` (see deployDevStack). */
export const deploy = (overrides: Record<string, string | undefined> = {}) =>
  deployDevStack(bundles, overrides);
