/** Who is calling: established by API-key authentication (spec section 5). */
export interface Principal {
  readonly customerId: string;
  readonly apiKeyId: string;
}
