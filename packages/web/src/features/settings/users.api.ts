/** Fetchers, query keys and hooks of user administration: /admin/users (administrator only). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CreatedUser,
  CreateUser,
  UpdateUser,
  UserAccount,
  UserAccountList,
} from '@adam/contracts';
import { api } from '../../api/client';

export const userKeys = {
  all: ['users'] as const,
  list: ['users', 'list'] as const,
};

export function fetchUsers(signal?: AbortSignal): Promise<UserAccountList> {
  return api.get<UserAccountList>('/admin/users', { signal });
}

// The screen names the user in its own messages: these calls are silent.
export function createUser(body: CreateUser): Promise<CreatedUser> {
  return api.post<CreatedUser>('/admin/users', body, { silent: true });
}

export function updateUser(id: number, change: UpdateUser): Promise<UserAccount> {
  return api.patch<UserAccount>(`/admin/users/${id}`, change, { silent: true });
}

export function deleteUser(id: number): Promise<null> {
  return api.delete<null>(`/admin/users/${id}`, undefined, { silent: true });
}

export function useUsers() {
  return useQuery({ queryKey: userKeys.list, queryFn: ({ signal }) => fetchUsers(signal) });
}

/** Every change refetches the list: a change can touch others (e.g. the last-administrator rule). */
function useUserMutation<A, R>(call: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.all }),
  });
}

export const useCreateUser = () => useUserMutation(createUser);
export const useUpdateUser = () =>
  useUserMutation(({ id, change }: { id: number; change: UpdateUser }) => updateUser(id, change));
export const useDeleteUser = () => useUserMutation(deleteUser);
