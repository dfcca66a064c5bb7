// The aggregated vLLM graph (graph.yaml) from TypeScript, through the `dynamo` provider plugin.
// The SDK under sdks/nodejs is generated from the plugin's schema: see README.md.
import * as fs from "fs";

import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as dynamo from "@pulumi/dynamo";

const config = new pulumi.Config();
const namespace = config.get("namespace") ?? "dynamo";

const ns = new k8s.core.v1.Namespace("namespace", { metadata: { name: namespace } });

// Pulumi runs the program in the project directory. The spec may also be an object or a path.
const graph = new dynamo.DynamoGraphDeployment("vllm-agg", {
    spec: fs.readFileSync("graph.yaml", "utf8"),
    namespace,
    readiness: { timeout: config.get("readinessTimeout") ?? "45m" },
}, { dependsOn: [ns] });

export const frontendUrl = graph.frontendUrl;
export const totalGpus = graph.totalGpus;
export const state = graph.state;
