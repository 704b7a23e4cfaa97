export * from "./test-runtime";
export * from "./test-services";
