/** Who a request acts for: the organisation an API token or session belongs to, and whether it is an admin's. */
export interface Principal {
  org: string;
  tokenId: string;
  admin: boolean;
}
