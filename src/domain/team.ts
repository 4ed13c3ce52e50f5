export interface Team {
  uuid: string;
  accountUuid: string;
  name: string;
  createdAt: number;
}
