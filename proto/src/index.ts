export const protoName = "proto";
