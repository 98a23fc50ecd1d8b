import { kitName } from "@mainline/kit";
import { protoName } from "@mainline/proto";
console.log(kitName, protoName);
