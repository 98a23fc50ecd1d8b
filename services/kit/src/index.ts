export const kitName = "kit";
