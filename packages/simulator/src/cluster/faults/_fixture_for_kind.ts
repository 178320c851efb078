/**
 * The default fixture of each kind the simulated cluster serves. Internal.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import {
  configMapFixture,
  deploymentFixture,
  type FixtureOptions,
  namespaceFixture,
  podFixture,
  widgetFixture,
} from "@kinformer/kinformer/internal";

/** The default fixture builder for a kind (pods for anything unknown). */
export function fixtureFor(kind: string): (index: number, options?: FixtureOptions) => KubeObject {
  switch (kind) {
    case "ConfigMap":
      return configMapFixture;
    case "Namespace":
      return namespaceFixture;
    case "Widget":
      return widgetFixture;
    case "Deployment":
      return deploymentFixture;
    default:
      return podFixture;
  }
}
